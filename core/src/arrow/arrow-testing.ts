import { Decimal, type Row, Timestamp } from '../row/value.js'
import { DataTypes, notNull, type RowType } from '../types/data-type.js'

/**
 * Test data shared by the Arrow tests: one column of every supported type and rows with nulls,
 * empty values, unicode and extreme values. Values are chosen to survive each column's unit
 * exactly (TIME(0) whole seconds, TIMESTAMP(6) whole microseconds, ...).
 */
export const ALL_TYPES: RowType = DataTypes.ROW(
  [
    ['bool', DataTypes.BOOLEAN()],
    ['i8', DataTypes.TINYINT()],
    ['i16', DataTypes.SMALLINT()],
    ['i32', notNull(DataTypes.INT())],
    ['i64', DataTypes.BIGINT()],
    ['f32', DataTypes.FLOAT()],
    ['f64', DataTypes.DOUBLE()],
    ['str', DataTypes.STRING()],
    ['chr', DataTypes.CHAR(3)],
    ['bin', DataTypes.BINARY(4)],
    ['bytes', DataTypes.BYTES()],
    ['dec', DataTypes.DECIMAL(10, 2)],
    ['dec38', DataTypes.DECIMAL(38, 10)],
    ['date', DataTypes.DATE()],
    ['time0', DataTypes.TIME(0)],
    ['time3', DataTypes.TIME(3)],
    ['time6', DataTypes.TIME(6)],
    ['time9', DataTypes.TIME(9)],
    ['ts0', DataTypes.TIMESTAMP(0)],
    ['ts3', DataTypes.TIMESTAMP(3)],
    ['ts6', DataTypes.TIMESTAMP(6)],
    ['ts9', DataTypes.TIMESTAMP(9)],
    ['ltz3', DataTypes.TIMESTAMP_LTZ(3)],
    ['ltz9', DataTypes.TIMESTAMP_LTZ(9)],
  ].map(([name, type], fieldId) => ({
    name: name as string,
    type: type as RowType['fields'][number]['type'],
    fieldId,
  })),
)

const MAX_DEC38 = 10n ** 38n - 1n

export const ALL_TYPES_ROWS: Row[] = [
  [
    true,
    1,
    2,
    3,
    4n,
    1.5,
    2.25,
    'hello',
    'abc',
    new Uint8Array([1, 2, 3, 4]),
    new Uint8Array([9]),
    new Decimal(12345n, 2),
    new Decimal(123456789012345678901234567n, 10),
    19000,
    3_600_000,
    3_600_123,
    3_600_123,
    86_399_999,
    new Timestamp(1_700_000_000_000),
    new Timestamp(1_700_000_000_123),
    new Timestamp(1_700_000_000_123, 456_000),
    new Timestamp(1_700_000_000_123, 456_789),
    new Timestamp(1_700_000_000_123),
    new Timestamp(1_700_000_000_123, 1),
  ],
  [
    null,
    null,
    null,
    -7,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ],
  [
    false,
    -128,
    -32768,
    -2147483648,
    -(2n ** 63n),
    -3.4028234663852886e38,
    -Number.MAX_VALUE,
    '',
    '',
    new Uint8Array(4),
    new Uint8Array(0),
    new Decimal(-99999999n, 2),
    new Decimal(-MAX_DEC38, 10),
    -719162,
    0,
    0,
    0,
    0,
    new Timestamp(-62_135_596_800_000),
    new Timestamp(-1),
    new Timestamp(-1, 999_000),
    new Timestamp(-1, 999_999),
    new Timestamp(-86_400_000),
    new Timestamp(-2, 5),
  ],
  [
    true,
    127,
    32767,
    2147483647,
    2n ** 63n - 1n,
    Math.fround(0.1),
    Number.MIN_VALUE,
    'héllo wörld ✓ 日本語 🎉',
    'ü',
    new Uint8Array([255, 254, 253, 252]),
    new Uint8Array([0, 255, 0]),
    new Decimal(-1n, 2),
    new Decimal(MAX_DEC38, 10),
    2_932_896,
    86_399_000,
    86_399_999,
    1,
    43_200_000,
    new Timestamp(253_402_300_799_000),
    new Timestamp(253_402_300_799_999),
    new Timestamp(9_000_000_000_000, 999_000),
    new Timestamp(9_000_000_000_000, 999_999),
    new Timestamp(0),
    new Timestamp(0, 999_999),
  ],
  [
    null,
    0,
    0,
    0,
    0n,
    0,
    0,
    'x'.repeat(300),
    'abc',
    null,
    new Uint8Array(100).fill(7),
    new Decimal(0n, 2),
    new Decimal(0n, 10),
    0,
    null,
    1,
    null,
    2,
    null,
    new Timestamp(1),
    null,
    new Timestamp(0, 1),
    null,
    new Timestamp(0),
  ],
]

/** Deterministic pseudo-random numbers (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `count` rows of ALL_TYPES built by cycling through ALL_TYPES_ROWS. */
export function manyRows(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ALL_TYPES_ROWS[i % ALL_TYPES_ROWS.length])
}
