/**
 * Text forms of DATE, TIME and TIMESTAMP values: ISO-8601 calendar dates (`2024-02-29`, or the
 * expanded `+012024-02-29` outside years 0000–9999), times of day (`13:45:07.250`) and date-times
 * with up to nine fraction digits. Parsers return null for text of the wrong shape and throw
 * RangeError for a right shape with impossible fields, so callers can word both errors.
 */

export const MILLIS_PER_DAY = 86_400_000
/** A JS Date holds instants up to 10^8 days either side of the epoch. */
const MAX_DATE_DAYS = 100_000_000

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
  if (text.length === 10 && isDigits(text, 0, 4) && text.charCodeAt(4) === 45 && twoDigitsAt(text, 5, 45)) {
    if (!isDigits(text, 8, 2)) return null
    return epochDay(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2))
  }
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
  const fast = parseFourDigitYearDateTime(text)
  if (fast !== undefined) return fast
  const m = DATE_TIME.exec(text)
  if (m === null) return null
  const day = epochDay(Number(m[1]), Number(m[2]), Number(m[3]))
  return dateTimeParts(text, day, [Number(m[4]), Number(m[5]), Number(m[6])], m[7], m[8])
}

function dateTimeParts(
  text: string,
  day: number,
  [hour, minute, second]: readonly number[],
  fractionText: string | undefined,
  zone: string | undefined,
): DateTimeParts {
  if (hour > 23 || minute > 59 || second > 59) throw new RangeError(`'${text}' has an invalid time of day`)
  const { millis, nanos, digits } = fraction(fractionText)
  return {
    millis: day * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis,
    nanoOfMillis: nanos,
    fractionDigits: digits,
    offsetMinutes: zone === undefined ? undefined : offsetMinutes(zone),
  }
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.f…][Z|±HH:MM]` read without a regular expression (the usual form, same
 * result as DATE_TIME); undefined for any other text, which DATE_TIME then decides on.
 */
function parseFourDigitYearDateTime(text: string): DateTimeParts | undefined {
  const n = text.length
  const sep = text.charCodeAt(10)
  if (n < 19 || !isDigits(text, 0, 4) || text.charCodeAt(4) !== 45 || !twoDigitsAt(text, 5, 45)) return
  if (!isDigits(text, 8, 2) || (sep !== 84 && sep !== 32) || !twoDigitsAt(text, 11, 58)) return
  if (!twoDigitsAt(text, 14, 58) || !isDigits(text, 17, 2)) return
  let end = 19
  if (text.charCodeAt(19) === 46) {
    end = 20
    while (end < n && end < 29 && isDigits(text, end, 1)) end++
    if (end === 20) return
  }
  const zone = text.slice(end)
  if (zone !== '' && zone !== 'Z' && !(zone.length === 6 && isZoneOffset(zone))) return
  const day = epochDay(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2))
  const time = [digitsAt(text, 11, 2), digitsAt(text, 14, 2), digitsAt(text, 17, 2)]
  return dateTimeParts(
    text,
    day,
    time,
    end > 19 ? text.slice(20, end) : undefined,
    zone === '' ? undefined : zone,
  )
}

function isZoneOffset(zone: string): boolean {
  const sign = zone.charCodeAt(0)
  return (sign === 43 || sign === 45) && twoDigitsAt(zone, 1, 58) && isDigits(zone, 4, 2)
}

function isDigits(text: string, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/** Two digits at `at` followed by the character `then`. */
function twoDigitsAt(text: string, at: number, then: number): boolean {
  return isDigits(text, at, 2) && text.charCodeAt(at + 2) === then
}

function digitsAt(text: string, at: number, count: number): number {
  let n = 0
  for (let i = at; i < at + count; i++) n = n * 10 + text.charCodeAt(i) - 48
  return n
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
  let millis = 0
  let nanos = 0
  let digits = 0
  for (let i = 0; i < 9; i++) {
    const d = i < text.length ? text.charCodeAt(i) - 48 : 0
    if (i < 3) millis = millis * 10 + d
    else nanos = nanos * 10 + d
    if (d !== 0) digits = i + 1
  }
  return { millis, nanos, digits }
}

/** Days since 1970-01-01 of a proleptic Gregorian date; RangeError unless it is a date a JS Date holds. */
function epochDay(year: number, month: number, day: number): number {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`${year}-${month}-${day} is not a calendar date`)
  }
  // Days from the civil date, counted in 400-year eras that start on March 1st.
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  const days = era * 146_097 + dayOfEra - 719_468
  if (Math.abs(days) > MAX_DATE_DAYS) throw new RangeError(`${year}-${month}-${day} is not a calendar date`)
  return days
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return leap ? 29 : 28
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
