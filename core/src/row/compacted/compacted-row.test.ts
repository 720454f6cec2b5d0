import { describe, expect, it } from 'vitest'
import { type DataType, DataTypes, notNull, type RowType } from '../../types/data-type.js'
import { Decimal, type Row, Timestamp, type Value } from '../value.js'
import {
  CompactedRowDecoder,
  CompactedRowEncoder,
  decodeCompactedRow,
  encodeCompactedRow,
} from './compacted-row.js'

function rowType(...types: DataType[]): RowType {
  return DataTypes.ROW(types.map((type, i) => ({ name: `f${i}`, type, fieldId: i })))
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex')
}

/** Encodes one value in a single-column row and returns the field bytes after the 1-byte null bit set. */
function fieldHex(type: DataType, value: Value): string {
  return hex(encodeCompactedRow([value], rowType(type))).slice(2)
}

describe('CompactedRow field encodings', () => {
  it('encodes (INT 10, STRING "abc") as null bits + varint + length-prefixed UTF-8 (6 bytes)', () => {
    const bytes = encodeCompactedRow([10, 'abc'], rowType(DataTypes.INT(), DataTypes.STRING()))
    expect(hex(bytes)).toBe('000a03616263')
  })

  it.each([
    [0, '00'],
    [1, '01'],
    [127, '7f'],
    [128, '8001'],
    [300, 'ac02'],
    [2_147_483_647, 'ffffffff07'],
    [-1, 'ffffffff0f'],
    [-2_147_483_648, '8080808008'],
  ])('INT %d as an unsigned varint of its 32-bit two’s complement', (v, expected) => {
    expect(fieldHex(DataTypes.INT(), v)).toBe(expected)
    expect(fieldHex(DataTypes.DATE(), v)).toBe(expected)
  })

  it.each([
    [0n, '00'],
    [3n, '03'],
    [128n, '8001'],
    [9_007_199_254_740_991n, 'ffffffffffffff0f'],
    [9_007_199_254_740_992n, '8080808080808010'],
    [9_223_372_036_854_775_807n, 'ffffffffffffffff7f'],
    [-1n, 'ffffffffffffffffff01'],
    [-9_223_372_036_854_775_808n, '80808080808080808001'],
    [-9_007_199_254_740_991n, '81808080808080f0ff01'],
  ])('BIGINT %s as a 64-bit varint', (v, expected) => {
    expect(fieldHex(DataTypes.BIGINT(), v)).toBe(expected)
  })

  it('encodes fixed-width types little-endian', () => {
    expect(fieldHex(DataTypes.BOOLEAN(), true)).toBe('01')
    expect(fieldHex(DataTypes.BOOLEAN(), false)).toBe('00')
    expect(fieldHex(DataTypes.TINYINT(), -1)).toBe('ff')
    expect(fieldHex(DataTypes.SMALLINT(), -2)).toBe('feff')
    expect(fieldHex(DataTypes.SMALLINT(), 0x1234)).toBe('3412')
    expect(fieldHex(DataTypes.FLOAT(), 1.5)).toBe('0000c03f')
    expect(fieldHex(DataTypes.DOUBLE(), -2.5)).toBe('00000000000004c0')
  })

  it('encodes strings, chars and bytes with a varint byte length', () => {
    expect(fieldHex(DataTypes.STRING(), '')).toBe('00')
    expect(fieldHex(DataTypes.STRING(), 'ü汉')).toBe('05c3bce6b189')
    expect(fieldHex(DataTypes.STRING(), '😀')).toBe('04f09f9880')
    expect(fieldHex(DataTypes.CHAR(3), 'ab')).toBe('026162')
    expect(fieldHex(DataTypes.BYTES(), new Uint8Array([1, 2, 3]))).toBe('03010203')
    expect(fieldHex(DataTypes.BINARY(2), new Uint8Array([0xff, 0]))).toBe('02ff00')
    const long = 'x'.repeat(200)
    expect(fieldHex(DataTypes.STRING(), long)).toBe(`c801${'78'.repeat(200)}`)
    expect(fieldHex(DataTypes.STRING(), 'é'.repeat(100))).toBe(`c801${'c3a9'.repeat(100)}`)
    // up to 150 bytes were reserved (2-byte length), 100 written: the bytes move back by one
    expect(fieldHex(DataTypes.STRING(), 'é'.repeat(50))).toBe(`64${'c3a9'.repeat(50)}`)
    expect(fieldHex(DataTypes.STRING(), 'a'.repeat(50))).toBe(`32${'61'.repeat(50)}`)
    expect(fieldHex(DataTypes.STRING(), 'é')).toBe('02c3a9')
  })

  it('encodes compact decimals (p ≤ 18) as varint64 of the unscaled value', () => {
    expect(fieldHex(DataTypes.DECIMAL(10, 2), new Decimal(12345n, 2))).toBe('b960')
    expect(fieldHex(DataTypes.DECIMAL(10, 2), new Decimal(-1n, 2))).toBe('ffffffffffffffffff01')
    // an exact rescale to the column scale: 1.5 at scale 1 becomes 150 at scale 2
    expect(fieldHex(DataTypes.DECIMAL(10, 2), new Decimal(15n, 1))).toBe('9601')
  })

  it.each([
    [0n, '0100'],
    [128n, '020080'],
    [-1n, '01ff'],
    [-129n, '02ff7f'],
    [123456789012345678901234567890n, '0d018ee90ff6c373e0ee4e3f0ad2'],
    [-123456789012345678901234567890n, '0dfe7116f0093c8c1f11b1c0f52e'],
    [10n ** 38n - 1n, '104b3b4ca85a86c47a098a223fffffffff'],
    [-(10n ** 38n - 1n), '10b4c4b357a5793b85f675ddc000000001'],
  ])('encodes DECIMAL(38, 0) %s as BigInteger.toByteArray bytes', (v, expected) => {
    expect(fieldHex(DataTypes.DECIMAL(38, 0), new Decimal(v, 0))).toBe(expected)
  })

  it('encodes timestamps as millis, plus nano-of-milli above precision 3', () => {
    expect(fieldHex(DataTypes.TIMESTAMP(3), new Timestamp(1000))).toBe('e807')
    expect(fieldHex(DataTypes.TIMESTAMP(6), new Timestamp(1000, 5))).toBe('e80705')
    expect(fieldHex(DataTypes.TIMESTAMP_LTZ(9), new Timestamp(-1, 999_999))).toBe(
      'ffffffffffffffffff01bf843d',
    )
    expect(fieldHex(DataTypes.TIMESTAMP_LTZ(0), new Timestamp(1, 0))).toBe('01')
  })

  it('sets null bits LSB-first, one bit per field, and writes nothing for nulls', () => {
    const types = Array.from({ length: 9 }, () => DataTypes.INT())
    const row: Row = [null, 1, null, 2, 3, 4, 5, 6, null]
    expect(hex(encodeCompactedRow(row, rowType(...types)))).toBe('0501010203040506')
  })

  it('writes a nested ROW as a length-prefixed compacted row', () => {
    const inner = rowType(DataTypes.INT(), DataTypes.STRING())
    const bytes = encodeCompactedRow([[7, null]], rowType(inner))
    expect(hex(bytes)).toBe('00020207')
    expect(decodeCompactedRow(bytes, rowType(inner))).toEqual([[7, null]])
  })
})

describe('CompactedRow round trips', () => {
  const all = rowType(
    DataTypes.BOOLEAN(),
    DataTypes.TINYINT(),
    DataTypes.SMALLINT(),
    DataTypes.INT(),
    DataTypes.BIGINT(),
    DataTypes.FLOAT(),
    DataTypes.DOUBLE(),
    DataTypes.STRING(),
    DataTypes.CHAR(4),
    DataTypes.BYTES(),
    DataTypes.BINARY(3),
    DataTypes.DECIMAL(18, 4),
    DataTypes.DECIMAL(38, 10),
    DataTypes.DATE(),
    DataTypes.TIME(3),
    DataTypes.TIMESTAMP(3),
    DataTypes.TIMESTAMP(9),
    DataTypes.TIMESTAMP_LTZ(6),
  )
  const rows: Row[] = [
    [
      true,
      -128,
      -32_768,
      -2_147_483_648,
      -9_223_372_036_854_775_808n,
      -3.4028234663852886e38,
      -Number.MAX_VALUE,
      '',
      '',
      new Uint8Array(0),
      new Uint8Array([0, 0, 0]),
      new Decimal(-999_999_999_999_999_999n, 4),
      new Decimal(-(10n ** 38n - 1n), 10),
      -719_162,
      0,
      new Timestamp(-62_135_596_800_000),
      new Timestamp(-1, 1),
      new Timestamp(Number.MIN_SAFE_INTEGER, 0),
    ],
    [
      false,
      127,
      32_767,
      2_147_483_647,
      9_223_372_036_854_775_807n,
      Math.fround(1.1),
      Number.MIN_VALUE,
      'héllo wörld 😀 汉字',
      'ab😀',
      new Uint8Array([255, 0, 128]),
      new Uint8Array([1, 2, 3]),
      new Decimal(999_999_999_999_999_999n, 4),
      new Decimal(10n ** 38n - 1n, 10),
      2_932_896,
      86_399_999,
      new Timestamp(253_402_300_799_999),
      new Timestamp(1_700_000_000_123, 456_789),
      new Timestamp(Number.MAX_SAFE_INTEGER, 999_000),
    ],
    Array.from({ length: 18 }, () => null),
  ]

  it.each(rows.map((r, i) => [i, r]))('round-trips row %d through encoder and decoder', (_i, row) => {
    const encoder = new CompactedRowEncoder(all)
    const decoder = new CompactedRowDecoder(all)
    const bytes = encoder.encode(row as Row)
    expect(decoder.decode(bytes)).toEqual(row)
  })

  it('keeps NaN, infinities and -0 for floating point columns', () => {
    const t = rowType(DataTypes.FLOAT(), DataTypes.DOUBLE(), DataTypes.DOUBLE(), DataTypes.DOUBLE())
    const decoded = decodeCompactedRow(encodeCompactedRow([Number.NaN, Infinity, -Infinity, -0], t), t)
    expect(decoded[0]).toBeNaN()
    expect(decoded.slice(1)).toEqual([Infinity, -Infinity, -0])
    expect(Object.is(decoded[3], -0)).toBe(true)
  })

  it('reuses one encoder buffer: views change, copies do not', () => {
    const t = rowType(notNull(DataTypes.INT()))
    const encoder = new CompactedRowEncoder(t)
    const copy = encoder.encode([1])
    const view = encoder.encodeView([2])
    encoder.encodeView([3])
    expect(hex(copy)).toBe('0001')
    expect(hex(view)).toBe('0003')
  })

  it('grows its buffer for large rows', () => {
    const t = rowType(DataTypes.STRING(), DataTypes.BYTES())
    const big = 'ab'.repeat(50_000)
    const bytes = new Uint8Array(70_000).fill(7)
    const [s, b] = decodeCompactedRow(encodeCompactedRow([big, bytes], t), t)
    expect(s === big).toBe(true)
    expect(Buffer.from(b as Uint8Array).equals(bytes)).toBe(true)
  })

  it('round-trips every 32-bit and 64-bit single-bit pattern', () => {
    const t = rowType(DataTypes.INT(), DataTypes.BIGINT())
    for (let i = 0; i < 64; i++) {
      const int = i < 32 ? (2 ** i) | 0 : -(i - 31)
      const long = BigInt.asIntN(64, (1n << BigInt(i + 1)) - 1n)
      expect(decodeCompactedRow(encodeCompactedRow([int, long], t), t)).toEqual([int, long])
    }
  })
})
