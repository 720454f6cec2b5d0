/**
 * Time-zone rules for auto-partitioning, computed with `Intl` (no tz library).
 *
 * A table's `table.auto-partition.time-zone` is read the way Fluss reads it
 * (`TimeZone.getTimeZone(id).toZoneId()`):
 * - the three-letter ids of Java's `ZoneId.SHORT_IDS` (`PST`, `CTT`, `EST`, ...) map to their region or offset;
 * - `GMT+h`, `GMT+hh`, `GMT+hhmm` and `GMT+hh:mm` (and `-`) are fixed offsets;
 * - any IANA id known to `Intl` (`Asia/Shanghai`, `UTC`, `Etc/GMT+5`) is a region;
 * - anything else silently becomes GMT, as in Java.
 * Sluice adds `system`: the coordinator's own zone.
 */

export interface TimeZoneRules {
  /** The resolved id (`Asia/Shanghai`, `GMT+08:00`, `GMT`). */
  readonly id: string
  /** The zone's offset from UTC, in milliseconds, at the instant `epochMs`. */
  offsetMsAt(epochMs: number): number
}

/** Wall-clock fields of a local date-time (month 1..12). */
export interface LocalDateTime {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millis: number
}

export const SYSTEM_TIME_ZONE_ID = 'system'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** Java's `ZoneId.SHORT_IDS`: the ids `TimeZone.toZoneId` resolves through this map. */
const SHORT_IDS: Readonly<Record<string, string>> = {
  ACT: 'Australia/Darwin',
  AET: 'Australia/Sydney',
  AGT: 'America/Argentina/Buenos_Aires',
  ART: 'Africa/Cairo',
  AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo',
  BST: 'Asia/Dhaka',
  CAT: 'Africa/Harare',
  CNT: 'America/St_Johns',
  CST: 'America/Chicago',
  CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa',
  ECT: 'Europe/Paris',
  IET: 'America/Indiana/Indianapolis',
  IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo',
  MIT: 'Pacific/Apia',
  NET: 'Asia/Yerevan',
  NST: 'Pacific/Auckland',
  PLT: 'Asia/Karachi',
  PNT: 'America/Phoenix',
  PRT: 'America/Puerto_Rico',
  PST: 'America/Los_Angeles',
  SST: 'Pacific/Guadalcanal',
  VST: 'Asia/Ho_Chi_Minh',
  EST: 'GMT-05:00',
  MST: 'GMT-07:00',
  HST: 'GMT-10:00',
}

const pad = (n: number, width: number) => String(n).padStart(width, '0')

export function fixedOffsetZone(offsetMs: number): TimeZoneRules {
  const abs = Math.abs(offsetMs)
  const hours = Math.floor(abs / HOUR_MS)
  const minutes = Math.floor((abs % HOUR_MS) / 60_000)
  const id = offsetMs === 0 ? 'GMT' : `GMT${offsetMs < 0 ? '-' : '+'}${pad(hours, 2)}:${pad(minutes, 2)}`
  return { id, offsetMsAt: () => offsetMs }
}

export const GMT: TimeZoneRules = fixedOffsetZone(0)

/** Java's custom time-zone id syntax (`TimeZone.parseCustomTimeZone`); undefined when not one. */
function parseCustomOffset(id: string): number | undefined {
  const m = /^GMT([+-])(?:(\d{1,2})(?::(\d{2}))?|(\d{3,4}))$/.exec(id)
  if (m === null) return undefined
  let hours: number
  let minutes: number
  if (m[4] !== undefined) {
    hours = Number(m[4].slice(0, -2))
    minutes = Number(m[4].slice(-2))
  } else {
    hours = Number(m[2])
    minutes = m[3] === undefined ? 0 : Number(m[3])
  }
  if (hours > 23 || minutes > 59) return undefined
  const offsetMs = hours * HOUR_MS + minutes * 60_000
  return m[1] === '-' ? -offsetMs : offsetMs
}

const regionCache = new Map<string, TimeZoneRules | null>()

function regionZone(id: string): TimeZoneRules | undefined {
  const cached = regionCache.get(id)
  if (cached !== undefined) return cached ?? undefined
  let zone: TimeZoneRules | null = null
  try {
    zone = intlZone(id)
  } catch {
    zone = null
  }
  regionCache.set(id, zone)
  return zone ?? undefined
}

function intlZone(id: string): TimeZoneRules {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: id,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  })
  return {
    id,
    offsetMsAt(epochMs: number): number {
      const wholeSecondMs = Math.floor(epochMs / 1000) * 1000
      const f: Record<string, string> = {}
      for (const part of format.formatToParts(wholeSecondMs)) f[part.type] = part.value
      const year = f.era === 'BC' || f.era === 'B' ? 1 - Number(f.year) : Number(f.year)
      const local = utcMs({
        year,
        month: Number(f.month),
        day: Number(f.day),
        hour: Number(f.hour),
        minute: Number(f.minute),
        second: Number(f.second),
        millis: 0,
      })
      return local - wholeSecondMs
    },
  }
}

/** Resolves a table's time-zone id as Fluss does (see the module comment). */
export function resolveTimeZone(id: string, systemTimeZoneId: string): TimeZoneRules {
  const wanted = id === SYSTEM_TIME_ZONE_ID ? systemTimeZoneId : id
  const target = SHORT_IDS[wanted] ?? wanted
  const offsetMs = parseCustomOffset(target)
  if (offsetMs !== undefined) return fixedOffsetZone(offsetMs)
  return regionZone(target) ?? GMT
}

/** The local fields as if they were UTC: the "local epoch millis". */
export function utcMs(t: LocalDateTime): number {
  const d = new Date(0)
  d.setUTCFullYear(t.year, t.month - 1, t.day)
  d.setUTCHours(t.hour, t.minute, t.second, t.millis)
  return d.getTime()
}

function fieldsOfUtcMs(ms: number): LocalDateTime {
  const d = new Date(ms)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millis: d.getUTCMilliseconds(),
  }
}

/** The wall-clock fields in `zone` at the instant `epochMs` (Java `ZonedDateTime.ofInstant`). */
export function toLocalDateTime(zone: TimeZoneRules, epochMs: number): LocalDateTime {
  return fieldsOfUtcMs(epochMs + zone.offsetMsAt(epochMs))
}

/**
 * The instant of a local date-time in `zone`, with Java's `ZonedDateTime.ofLocal` rules: in a gap
 * (clocks jump forward) the local time moves later by the length of the gap; in an overlap the
 * earlier offset wins. Date-level results only depend on the gap rule.
 */
export function toInstant(zone: TimeZoneRules, local: LocalDateTime): number {
  const localMs = utcMs(local)
  const before = zone.offsetMsAt(localMs - DAY_MS)
  const after = zone.offsetMsAt(localMs + DAY_MS)
  if (zone.offsetMsAt(localMs - before) === before) return localMs - before
  if (zone.offsetMsAt(localMs - after) === after) return localMs - after
  return localMs - before
}
