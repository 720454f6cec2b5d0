import { FlussError } from '../errors/index.js'
import { type Row, Timestamp, type Value } from '../row/value.js'
import { type DataType, type RowType, type TypeRoot, typeToString } from '../types/data-type.js'
import { PARTITION_SPEC_SEPARATOR } from './partition.js'

/**
 * How a partition column's value becomes (part of) a partition name, exactly as Fluss renders it
 * (`PartitionUtils.convertValueOfType`, `PartitionNameConverters`):
 *
 * | type | rendering | example |
 * |---|---|---|
 * | CHAR, STRING | the text | `Fluss` |
 * | BOOLEAN | `true` / `false` | |
 * | BINARY, BYTES | lowercase hex | `1020ff` |
 * | TINYINT … BIGINT | decimal | `-32760` |
 * | FLOAT, DOUBLE | Java `toString` with `.` → `_`; `NaN`, `Inf`, `-Inf` | `5_73`, `1_0E10` |
 * | DATE | `yyyy-MM-dd` | `2025-05-27` |
 * | TIME | `HH-mm-ss_SSS` | `01-30-02_199` |
 * | TIMESTAMP, TIMESTAMP_LTZ | `yyyy-MM-dd-HH-mm-ss_` + nano-of-second without trailing zeros (UTC) | `2025-05-31-03-42-35_428099988` |
 */

export const PARTITION_KEY_SUPPORTED_TYPES: readonly TypeRoot[] = [
  'CHAR',
  'STRING',
  'BOOLEAN',
  'BINARY',
  'BYTES',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'DATE',
  'TIME_WITHOUT_TIME_ZONE',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'TIMESTAMP_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
]

function wrongValue(value: Value, type: DataType): FlussError {
  const shown = typeof value === 'bigint' ? `${value}n` : String(value)
  return new FlussError(
    'PARTITION_SPEC_INVALID_EXCEPTION',
    `Value ${shown} is not a valid ${typeToString(type)} partition value.`,
  )
}

/** The partition-name text of one partition column value. */
export function partitionValueToString(value: Value, type: DataType): string {
  if (value === null)
    throw new FlussError('PARTITION_SPEC_INVALID_EXCEPTION', "Partition value shouldn't be null.")
  const ok = (cond: boolean) => {
    if (!cond) throw wrongValue(value, type)
  }
  switch (type.type) {
    case 'CHAR':
    case 'STRING':
      ok(typeof value === 'string')
      return value as string
    case 'BOOLEAN':
      ok(typeof value === 'boolean')
      return String(value)
    case 'BINARY':
    case 'BYTES':
      ok(value instanceof Uint8Array)
      return Buffer.from(value as Uint8Array).toString('hex')
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
      ok(typeof value === 'number' && Number.isInteger(value))
      return String(value)
    case 'BIGINT':
      ok(typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value)))
      return String(value)
    case 'FLOAT':
      ok(typeof value === 'number')
      return floatingText(value as number, true)
    case 'DOUBLE':
      ok(typeof value === 'number')
      return floatingText(value as number, false)
    case 'DATE':
      ok(typeof value === 'number' && Number.isInteger(value))
      return dayToString(value as number)
    case 'TIME_WITHOUT_TIME_ZONE':
      ok(typeof value === 'number' && Number.isInteger(value))
      return milliOfDayToString(value as number)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      ok(value instanceof Timestamp)
      return timestampToString(value as Timestamp)
    default:
      throw new FlussError(
        'PARTITION_SPEC_INVALID_EXCEPTION',
        `Unsupported partition key type ${typeToString(type)}.`,
      )
  }
}

/**
 * A function from a row to its partition name, for a table whose row type is `rowType` and
 * whose partition keys are `partitionKeys` (Fluss's `PartitionGetter`).
 */
export function partitionGetter(rowType: RowType, partitionKeys: readonly string[]): (row: Row) => string {
  const columns = partitionKeys.map(key => {
    const index = rowType.fields.findIndex(f => f.name === key)
    if (index < 0) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `The partition column ${key} is not in the row ${typeToString(rowType)}.`,
      )
    }
    return { index, type: rowType.fields[index].type }
  })
  return row =>
    columns.map(c => partitionValueToString(row[c.index] ?? null, c.type)).join(PARTITION_SPEC_SEPARATOR)
}

const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** `%04d-%02d-%02d` of the proleptic UTC date `days` after 1970-01-01. */
function dayToString(days: number): string {
  const d = new Date(days * 86_400_000)
  const y = d.getUTCFullYear()
  const year = y < 0 ? `-${pad(-y, 3)}` : pad(y, 4)
  return `${year}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
}

function milliOfDayToString(ms: number): string {
  const hour = Math.floor(ms / 3_600_000)
  const inHour = ((ms % 3_600_000) + 3_600_000) % 3_600_000
  const minute = Math.floor(inHour / 60_000)
  const second = Math.floor((inHour % 60_000) / 1000)
  const milli = ((ms % 1000) + 1000) % 1000
  return `${pad(hour, 2)}-${pad(minute, 2)}-${pad(second, 2)}_${pad(milli, 3)}`
}

/** Year as `yyyy` (year of era) prints it: 4 digits, `+` when wider. */
function yearOfEra(year: number): string {
  const y = year <= 0 ? 1 - year : year
  return y > 9999 ? `+${y}` : pad(y, 4)
}

function timestampToString(ts: Timestamp): string {
  const d = new Date(ts.millis)
  const nanoOfSecond = d.getUTCMilliseconds() * 1_000_000 + ts.nanoOfMillis
  const fraction = nanoOfSecond === 0 ? '' : pad(nanoOfSecond, 9).replace(/0+$/, '')
  const date = `${yearOfEra(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
  const time = `${pad(d.getUTCHours(), 2)}-${pad(d.getUTCMinutes(), 2)}-${pad(d.getUTCSeconds(), 2)}`
  return `${date}-${time}_${fraction}`
}

function floatingText(x: number, isFloat: boolean): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Inf' : '-Inf'
  return javaFloatingToString(x, isFloat).replace('.', '_')
}

/** Java's `Float.toString` / `Double.toString` (shortest digits that read back to the same value). */
export function javaFloatingToString(x: number, isFloat: boolean): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  const [mantissa, exp] = shortestExponential(Math.abs(x), isFloat).split('e')
  const digits = mantissa.replace('.', '')
  const e = Number(exp)
  const abs = Math.abs(x)
  if (abs >= 1e-3 && abs < 1e7) {
    if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`
    const intPart = digits.slice(0, e + 1).padEnd(e + 1, '0')
    return `${sign}${intPart}.${digits.slice(e + 1) || '0'}`
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${e}`
}

function shortestExponential(abs: number, isFloat: boolean): string {
  if (!isFloat) return abs.toExponential()
  const f = Math.fround(abs)
  for (let p = 0; p < 9; p++) {
    const text = f.toExponential(p)
    if (Math.fround(Number(text)) === f) return text
  }
  return f.toExponential(8)
}
