import { type Canonical, type ColumnSpec, decimalText, floatText, type TableSpec } from './canonical.js'

/**
 * The deterministic all-types dataset of the compatibility suite. The same formulas are written in
 * Java (java/src/main/java/io/sluice/compat/Dataset.java) and Python (python/dataset.py); each
 * yields the canonical text (canonical.ts) of column `c` in row `i` of version `salt`, so that the
 * three languages agree exactly: integers only, dyadic floats, decimals from integers, timestamps
 * from integer millis + nanos. `salt` gives the same key a different row (for updates).
 *
 * Timestamps with millisecond precision reach back to 1873; those with a sub-millisecond part stay
 * after 1970, because the Fluss Java client cannot read earlier ones (its Arrow timestamp vectors
 * split epoch micros/nanos with truncating division, and TimestampNtz/Ltz reject the negative
 * nano-of-millisecond that results).
 */
export const ALL_TYPES_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'INT', nullable: false },
  { name: 'c_boolean', type: 'BOOLEAN' },
  { name: 'c_tinyint', type: 'TINYINT' },
  { name: 'c_smallint', type: 'SMALLINT' },
  { name: 'c_int', type: 'INT' },
  { name: 'c_bigint', type: 'BIGINT' },
  { name: 'c_float', type: 'FLOAT' },
  { name: 'c_double', type: 'DOUBLE' },
  { name: 'c_decimal_10_2', type: 'DECIMAL(10, 2)' },
  { name: 'c_decimal_38_10', type: 'DECIMAL(38, 10)' },
  { name: 'c_char', type: 'CHAR(8)' },
  { name: 'c_string', type: 'STRING' },
  { name: 'c_binary', type: 'BINARY(4)' },
  { name: 'c_bytes', type: 'BYTES' },
  { name: 'c_date', type: 'DATE' },
  { name: 'c_time_0', type: 'TIME(0)' },
  { name: 'c_time_3', type: 'TIME(3)' },
  { name: 'c_time_6', type: 'TIME(6)' },
  { name: 'c_time_9', type: 'TIME(9)' },
  { name: 'c_timestamp_3', type: 'TIMESTAMP(3)' },
  { name: 'c_timestamp_6', type: 'TIMESTAMP(6)' },
  { name: 'c_timestamp_9', type: 'TIMESTAMP(9)' },
  { name: 'c_timestamp_ltz_3', type: 'TIMESTAMP_LTZ(3)' },
  { name: 'c_timestamp_ltz_6', type: 'TIMESTAMP_LTZ(6)' },
  { name: 'c_timestamp_ltz_9', type: 'TIMESTAMP_LTZ(9)' },
]

export const ALL_TYPES_NAMES = ALL_TYPES_COLUMNS.map(c => c.name)

/** The all-types log table. */
export function allTypesLogTable(buckets: number): TableSpec {
  return { columns: ALL_TYPES_COLUMNS, buckets }
}

/** The all-types primary-key table (key `id`). */
export function allTypesPkTable(buckets: number, properties?: Record<string, string>): TableSpec {
  return { columns: ALL_TYPES_COLUMNS, primaryKey: ['id'], buckets, ...(properties ? { properties } : {}) }
}

const STRING_SUFFIXES = ['', '-ä', '-日本語', '-🚀', '-ß€', '-e\u0301', '-tab\there']
const FLOAT_MAX = 3.4028234663852886e38
const SALT_STRIDE = 1_000_003

const toInt32 = (v: bigint) => BigInt.asIntN(32, v).toString()
const toInt64 = (v: bigint) => BigInt.asIntN(64, v).toString()
/** Non-negative remainder of non-negative operands (all formulas stay in safe integers). */
const mod = (a: number, b: number) => a % b

function floatValue(j: number, m: number): number {
  switch (j % 101) {
    case 7:
      return Number.POSITIVE_INFINITY
    case 17:
      return Number.NEGATIVE_INFINITY
    case 27:
      return -0
    case 37:
      return Number.NaN
    case 47:
      return 2 ** -149
    case 57:
      return FLOAT_MAX
    default:
      return (m - 50_000) / 16
  }
}

function doubleValue(j: number, m: number): number {
  switch (j % 103) {
    case 3:
      return Number.NaN
    case 13:
      return Number.POSITIVE_INFINITY
    case 23:
      return Number.NEGATIVE_INFINITY
    case 33:
      return -0
    case 43:
      return 2 ** -1074
    case 53:
      return Number.MAX_VALUE
    default:
      return (m * 1_000_003 - 7) / 1024
  }
}

function decimal38(j: number, m: number): string {
  const max = 10n ** 38n - 1n
  if (j % 997 === 1) return decimalText(max, 10)
  if (j % 997 === 2) return decimalText(-max, 10)
  return decimalText(BigInt(m - 50_000) * 10n ** 32n + BigInt(j) * 123_456_789_012_345_678n, 10)
}

function bytesHex(j: number): string {
  const out: string[] = []
  for (let k = 0; k < j % 13; k++) out.push(((j + k * 31) & 0xff).toString(16).padStart(2, '0'))
  return out.join('')
}

function epochNanos(millis: number, nanoOfMilli: number): string {
  return (BigInt(millis) * 1_000_000n + BigInt(nanoOfMilli)).toString()
}

function nonNullValue(column: string, j: number): string {
  const m = j % 100_003
  switch (column) {
    case 'c_boolean':
      return j % 3 === 0 ? 'true' : 'false'
    case 'c_tinyint':
      return String(mod(j * 37, 256) - 128)
    case 'c_smallint':
      return String(mod(j * 2741, 65_536) - 32_768)
    case 'c_int':
      return toInt32(BigInt(j) * 1_103_515_245n + 12_345n)
    case 'c_bigint':
      return toInt64(BigInt(j) * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n)
    case 'c_float':
      return floatText(floatValue(j, m), false)
    case 'c_double':
      return floatText(doubleValue(j, m), true)
    case 'c_decimal_10_2':
      return decimalText(((BigInt(j) * 99_991n) % 9_999_999_999n) - 4_999_999_999n, 2)
    case 'c_decimal_38_10':
      return decimal38(j, m)
    case 'c_char':
      return `c${String(j % 10_000_000).padStart(7, '0')}`
    case 'c_string':
      return j % 101 === 0 ? '' : `r${j}${STRING_SUFFIXES[j % 7]}${'x'.repeat(j % 23)}`
    case 'c_binary':
      return ((BigInt(j) * 2_654_435_761n) % 4_294_967_296n).toString(16).padStart(8, '0')
    case 'c_bytes':
      return bytesHex(j)
    case 'c_date':
      return String(mod(j * 7, 40_000) - 20_000)
    case 'c_time_0':
      return String(mod(j * 7919, 86_400) * 1000)
    case 'c_time_3':
      return String(mod(j * 7_654_321, 86_400_000))
    case 'c_time_6':
      return String(mod(j * 1_234_567, 86_400_000))
    case 'c_time_9':
      return String(mod(j * 3_456_789, 86_400_000))
    case 'c_timestamp_3':
      return epochNanos((m - 50_000) * 60_000_017 + 3, 0)
    case 'c_timestamp_6':
      return epochNanos(m * 59_999_989 + 6, mod(j * 997, 1000) * 1000)
    case 'c_timestamp_9':
      return epochNanos(m * 60_000_049 + 9, mod(j * 999_983, 1_000_000))
    case 'c_timestamp_ltz_3':
      return epochNanos((m - 50_000) * 61_000_003 + 33, 0)
    case 'c_timestamp_ltz_6':
      return epochNanos(m * 61_000_007 + 66, mod(j * 991, 1000) * 1000)
    case 'c_timestamp_ltz_9':
      return epochNanos(m * 61_000_009 + 99, mod(j * 999_979, 1_000_000))
    default:
      throw new Error(`column ${column} is not in the all-types dataset`)
  }
}

/** Canonical text of `column` in row `i` (version `salt`); `id` is `i` itself and never null. */
export function datasetValue(i: number, salt: number, column: string): Canonical {
  if (column === 'id') return String(i)
  const position = ALL_TYPES_NAMES.indexOf(column)
  if (position < 0) throw new Error(`column ${column} is not in the all-types dataset`)
  const j = i + salt * SALT_STRIDE
  if (j % 5000 === 4999 || (j + position * 7) % 13 === 0) return null
  return nonNullValue(column, j)
}

/** Canonical row `i` (version `salt`) over `columns` (all columns by default). */
export function datasetRow(i: number, salt = 0, columns: readonly string[] = ALL_TYPES_NAMES): Canonical[] {
  return columns.map(c => datasetValue(i, salt, c))
}
