import { type DataType, Timestamp, type Value } from '@sluice/core'
import { invalidArgument } from '../errors/gateway-error.js'
import { LongNumber } from './long-number.js'
import { type DateTimeParts, parseDate, parseDateTime, parseTime } from './temporal.js'

/**
 * JSON → DATE / TIME / TIMESTAMP / TIMESTAMP_LTZ values. DATE is "YYYY-MM-DD"; TIME is
 * "HH:MM:SS[.fff]" (milliseconds are what a TIME value keeps); TIMESTAMP is ISO-8601 without a zone
 * and TIMESTAMP_LTZ ISO-8601 with `Z` or an offset; both also take epoch microseconds as a safe
 * integer number or a decimal string. More fraction digits than the column's precision are refused.
 */

const MICROS_TEXT = /^-?\d{1,19}$/

function fail(path: string, reason: string): never {
  throw invalidArgument(`${path}: ${reason}`)
}

export function readTemporal(type: DataType, json: unknown, path: string): Value {
  const t = type
  try {
    switch (t.type) {
      case 'DATE':
        return readDate(json, path)
      case 'TIME_WITHOUT_TIME_ZONE':
        return readTime(json, path, t.precision)
      case 'TIMESTAMP_WITHOUT_TIME_ZONE':
        return readTimestamp(json, path, t.precision, false)
      case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
        return readTimestamp(json, path, t.precision, true)
      default:
        return fail(path, `${t.type} is not a temporal type`)
    }
  } catch (e) {
    if (e instanceof RangeError) return fail(path, e.message)
    throw e
  }
}

function readDate(json: unknown, path: string): Value {
  const days = typeof json === 'string' ? parseDate(json) : null
  return days ?? fail(path, 'expected a DATE as "YYYY-MM-DD"')
}

function readTime(json: unknown, path: string, precision: number): Value {
  const t = typeof json === 'string' ? parseTime(json) : null
  if (t === null) return fail(path, 'expected a TIME as "HH:MM:SS" or "HH:MM:SS.fff"')
  checkFraction(path, t.fractionDigits, Math.min(precision, 3), `TIME(${precision})`)
  return t.millis
}

function readTimestamp(json: unknown, path: string, precision: number, ltz: boolean): Value {
  const name = ltz ? `TIMESTAMP_LTZ(${precision})` : `TIMESTAMP(${precision})`
  if (typeof json === 'number' || json instanceof LongNumber) {
    if (typeof json !== 'number' || !Number.isSafeInteger(json)) {
      return fail(
        path,
        'epoch microseconds as a number must be a safe integer; send larger values as a string',
      )
    }
    return fromMicros(BigInt(json), precision, path, name)
  }
  if (typeof json !== 'string') return fail(path, `expected ${name} as ISO-8601 text or epoch microseconds`)
  if (MICROS_TEXT.test(json)) return fromMicros(BigInt(json), precision, path, name)
  const parts = parseDateTime(json)
  if (parts === null) {
    const form = ltz ? 'YYYY-MM-DDTHH:MM:SS[.fffffffff] with Z or ±HH:MM' : 'YYYY-MM-DDTHH:MM:SS[.fffffffff]'
    return fail(path, `expected ${name} as "${form}" or epoch microseconds`)
  }
  return toTimestamp(parts, precision, ltz, path, name)
}

function toTimestamp(
  parts: DateTimeParts,
  precision: number,
  ltz: boolean,
  path: string,
  name: string,
): Value {
  if (ltz && parts.offsetMinutes === undefined) {
    return fail(path, `${name} needs a zone: end the time with Z or an offset like +02:00`)
  }
  if (!ltz && parts.offsetMinutes !== undefined) {
    return fail(path, `${name} has no time zone: drop the offset, or use a TIMESTAMP_LTZ column`)
  }
  checkFraction(path, parts.fractionDigits, precision, name)
  const millis = parts.millis - (parts.offsetMinutes ?? 0) * 60_000
  return new Timestamp(millis, parts.nanoOfMillis)
}

function fromMicros(micros: bigint, precision: number, path: string, name: string): Value {
  const ts = Timestamp.fromMicros(micros)
  if (!Number.isSafeInteger(ts.millis)) return fail(path, 'epoch microseconds out of range')
  const subSecondMicros = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n
  const digits = String(subSecondMicros).padStart(6, '0').replace(/0+$/, '').length
  checkFraction(path, digits, precision, name)
  return ts
}

function checkFraction(path: string, digits: number, allowed: number, name: string): void {
  if (digits > allowed) {
    fail(path, `${name} keeps ${allowed} fraction digits of a second; the value has ${digits}`)
  }
}
