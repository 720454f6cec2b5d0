/**
 * Text forms of DATE, TIME and TIMESTAMP values: ISO-8601 calendar dates (`2024-02-29`, or the
 * expanded `+012024-02-29` outside years 0000–9999), times of day (`13:45:07.250`) and date-times
 * with up to nine fraction digits. Parsers return null for text of the wrong shape and throw
 * RangeError for a right shape with impossible fields, so callers can word both errors.
 */

export const MILLIS_PER_DAY = 86_400_000

const DATE = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/
const DATE_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/

export interface DateTimeParts {
  /** Milliseconds since the epoch of the wall-clock time (zone not applied). */
  readonly millis: number
  /** Nanoseconds below the millisecond. */
  readonly nanoOfMillis: number
  /** Fraction digits written, trailing zeros removed. */
  readonly fractionDigits: number
  /** Zone offset in minutes (`Z` = 0), undefined without a zone. */
  readonly offsetMinutes: number | undefined
}

/** Days since 1970-01-01, or null when `text` is not a date. */
export function parseDate(text: string): number | null {
  const m = DATE.exec(text)
  if (m === null) return null
  return epochDay(Number(m[1]), Number(m[2]), Number(m[3]))
}

/** Milliseconds of the day and the fraction digits written, or null when `text` is not a time. */
export function parseTime(
  text: string,
): { millis: number; nanoOfMillis: number; fractionDigits: number } | null {
  const m = TIME.exec(text)
  if (m === null) return null
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (hour > 23 || minute > 59 || second > 59) throw new RangeError(`'${text}' is not a valid time of day`)
  const { millis, nanos, digits } = fraction(m[4])
  return {
    millis: ((hour * 60 + minute) * 60 + second) * 1000 + millis,
    nanoOfMillis: nanos,
    fractionDigits: digits,
  }
}

export function parseDateTime(text: string): DateTimeParts | null {
  const m = DATE_TIME.exec(text)
  if (m === null) return null
  const day = epochDay(Number(m[1]), Number(m[2]), Number(m[3]))
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])]
  if (hour > 23 || minute > 59 || second > 59) throw new RangeError(`'${text}' has an invalid time of day`)
  const { millis, nanos, digits } = fraction(m[7])
  return {
    millis: day * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis,
    nanoOfMillis: nanos,
    fractionDigits: digits,
    offsetMinutes: m[8] === undefined ? undefined : offsetMinutes(m[8]),
  }
}

function offsetMinutes(zone: string): number {
  if (zone === 'Z') return 0
  const hours = Number(zone.slice(1, 3))
  const minutes = Number(zone.slice(4, 6))
  if (hours > 18 || minutes > 59) throw new RangeError(`zone offset '${zone}' is out of range`)
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes)
}

function fraction(text: string | undefined): { millis: number; nanos: number; digits: number } {
  if (text === undefined) return { millis: 0, nanos: 0, digits: 0 }
  const padded = text.padEnd(9, '0')
  return {
    millis: Number(padded.slice(0, 3)),
    nanos: Number(padded.slice(3)),
    digits: text.replace(/0+$/, '').length,
  }
}

function epochDay(year: number, month: number, day: number): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    throw new RangeError(`${year}-${month}-${day} is not a calendar date`)
  }
  return Math.round(d.getTime() / MILLIS_PER_DAY)
}

export function formatDate(epochDays: number): string {
  const d = new Date(epochDays * MILLIS_PER_DAY)
  return `${formatYear(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
}

/** `HH:MM:SS`, with `.fff` when the milliseconds are not zero. */
export function formatTime(millisOfDay: number): string {
  const ms = millisOfDay % 1000
  const seconds = Math.floor(millisOfDay / 1000)
  const base = `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}`
  return ms === 0 ? base : `${base}.${pad(ms, 3)}`
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.fffffffff]` (fraction trailing zeros removed), or null when the instant is
 * outside what a JS Date can represent.
 */
export function formatDateTime(millis: number, nanoOfMillis: number): string | null {
  const d = new Date(millis)
  if (Number.isNaN(d.getTime())) return null
  const date = `${formatYear(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
  const time = `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  const frac = `${pad(d.getUTCMilliseconds(), 3)}${pad(nanoOfMillis, 6)}`.replace(/0+$/, '')
  return `${date}T${time}${frac === '' ? '' : `.${frac}`}`
}

function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4)
  return `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
