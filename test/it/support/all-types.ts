import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { Decimal, type Row, Timestamp, type Value } from '@sluice/core/row'
import { type DataType, DataTypes, notNull } from '@sluice/core/types'

/**
 * A log table with one column of every supported primitive type (temporal types at several
 * precisions), and a deterministic row generator: row `i` is a pure function of `i`, so a reader
 * can recompute what it should have received from the `id` column alone. Values are chosen at the
 * precision of their column (TIME(0) whole seconds, TIMESTAMP(6) whole microseconds, ...) so that a
 * correct round trip is exact.
 */
export const ALL_TYPES_COLUMNS: readonly (readonly [string, DataType])[] = [
  ['id', notNull(DataTypes.BIGINT())],
  ['c_boolean', DataTypes.BOOLEAN()],
  ['c_tinyint', DataTypes.TINYINT()],
  ['c_smallint', DataTypes.SMALLINT()],
  ['c_int', DataTypes.INT()],
  ['c_bigint', DataTypes.BIGINT()],
  ['c_float', DataTypes.FLOAT()],
  ['c_double', DataTypes.DOUBLE()],
  ['c_decimal_10_2', DataTypes.DECIMAL(10, 2)],
  ['c_decimal_38_10', DataTypes.DECIMAL(38, 10)],
  ['c_char_6', DataTypes.CHAR(6)],
  ['c_string', DataTypes.STRING()],
  ['c_binary_4', DataTypes.BINARY(4)],
  ['c_bytes', DataTypes.BYTES()],
  ['c_date', DataTypes.DATE()],
  ['c_time_0', DataTypes.TIME(0)],
  ['c_time_3', DataTypes.TIME(3)],
  ['c_timestamp_0', DataTypes.TIMESTAMP(0)],
  ['c_timestamp_3', DataTypes.TIMESTAMP(3)],
  ['c_timestamp_6', DataTypes.TIMESTAMP(6)],
  ['c_timestamp_9', DataTypes.TIMESTAMP(9)],
  ['c_ltz_3', DataTypes.TIMESTAMP_LTZ(3)],
  ['c_ltz_6', DataTypes.TIMESTAMP_LTZ(6)],
]

export const ALL_TYPES_NAMES = ALL_TYPES_COLUMNS.map(([name]) => name)

export function allTypesDescriptor(
  buckets: number,
  properties: Record<string, string> = {},
): TableDescriptor {
  const schema = Schema.newBuilder()
  for (const [name, type] of ALL_TYPES_COLUMNS) schema.column(name, type)
  return TableDescriptor.builder()
    .schema(schema.build())
    .distributedBy(buckets)
    .properties(properties)
    .build()
}

const BASE_MS = 1_764_000_000_000
const FLOAT_SPECIALS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  3.4028234663852886e38,
]
const DOUBLE_SPECIALS = [Number.NaN, Number.POSITIVE_INFINITY, -0, Number.MAX_VALUE, Number.MIN_VALUE]
const STRINGS = ['', 'ascii', 'ünïcödé', '日本語テキスト', 'emoji 🙂🚀', 'quote"\\\n\ttab']

function bytesOf(i: number, n: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let k = 0; k < n; k++) b[k] = (i * 31 + k * 7) & 0xff
  return b
}

/** The values of row `i` (before nulls are applied). */
function valuesOf(i: number): Value[] {
  const sign = i % 2 === 0 ? 1 : -1
  return [
    BigInt(i),
    i % 3 === 0,
    ((i * 37) % 256) - 128,
    ((i * 7919) % 65536) - 32768,
    Math.imul(i, 0x9e3779b1),
    BigInt.asIntN(64, BigInt(i) * 0x9e3779b97f4a7c15n),
    i % 101 === 1 ? FLOAT_SPECIALS[i % FLOAT_SPECIALS.length] : Math.fround(sign * i * 0.37),
    i % 103 === 1 ? DOUBLE_SPECIALS[i % DOUBLE_SPECIALS.length] : sign * i * 1.0000001,
    new Decimal(BigInt(sign * i * 1013), 2),
    i % 97 === 0
      ? new Decimal(BigInt(sign) * (10n ** 38n - 1n), 10)
      : new Decimal(BigInt(sign) * (BigInt(i) * 10n ** 27n + 123_456_789n), 10),
    `c${i % 100_000}`,
    i % 7 === 0 ? STRINGS[i % STRINGS.length] : `row-${i}-${'x'.repeat(i % 40)}`,
    bytesOf(i, 4),
    bytesOf(i + 1, i % 23),
    (i % 60_000) - 30_000,
    (i * 1000) % 86_400_000,
    (i * 7919) % 86_400_000,
    new Timestamp(sign * (BASE_MS + i * 1000)),
    new Timestamp(BASE_MS + sign * i * 7),
    new Timestamp(BASE_MS - i * 13, (i % 1000) * 1000),
    new Timestamp(sign * BASE_MS + i, (i * 7919) % 1_000_000),
    new Timestamp(BASE_MS + i * 3),
    new Timestamp(BASE_MS - i, (i % 997) * 1000),
  ]
}

/** Row `i`: column j (> 0) is null when (i + j) % 17 === 0. */
export function allTypesRow(i: number): Row {
  const values = valuesOf(i)
  for (let j = 1; j < values.length; j++) if ((i + j) % 17 === 0) values[j] = null
  return values
}

/** Exact equality of two values of the core value model (NaN equals NaN, -0 differs from 0). */
export function valueEquals(a: Value, b: Value): boolean {
  if (a === null || b === null) return a === b
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b)
  if (typeof a === 'bigint' || typeof a === 'string' || typeof a === 'boolean') return a === b
  if (a instanceof Decimal) return b instanceof Decimal && a.equals(b)
  if (a instanceof Timestamp) return b instanceof Timestamp && a.equals(b)
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b))
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Describes the first difference between two rows, or undefined when they are equal. */
export function rowDifference(expected: Row, actual: Row, names: readonly string[]): string | undefined {
  if (expected.length !== actual.length) return `expected ${expected.length} values, got ${actual.length}`
  for (let j = 0; j < expected.length; j++) {
    if (!valueEquals(expected[j], actual[j])) {
      return `column ${names[j]}: expected ${show(expected[j])}, got ${show(actual[j])}`
    }
  }
  return undefined
}

function show(v: Value): string {
  if (v instanceof Uint8Array) return `bytes[${Buffer.from(v).toString('hex')}]`
  if (typeof v === 'bigint') return `${v}n`
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v)
  if (v instanceof Timestamp) return `Timestamp(${v.millis}, ${v.nanoOfMillis})`
  return v === null ? 'null' : String(v)
}
