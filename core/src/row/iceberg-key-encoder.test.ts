import { describe, expect, it } from 'vitest'
import { icebergBucketForKey } from '../bucketing/index.js'
import { type DataType, DataTypes, type RowType } from '../types/data-type.js'
import { IcebergKeyDecoder } from './iceberg-key-decoder.js'
import { IcebergKeyEncoder } from './iceberg-key-encoder.js'
import { Decimal, Timestamp, type Value } from './value.js'

function keyType(type: DataType, name = 'k'): RowType {
  return DataTypes.ROW([{ name, type, fieldId: 0 }])
}

function encode(type: DataType, value: Value): Buffer {
  return new IcebergKeyEncoder(keyType(type), ['k']).encodeKey([value])
}

/**
 * Golden vectors from Fluss 0.9.1's own IcebergKeyEncoder and IcebergBucketingFunction (run from the
 * fluss-client jar): the encoded key, and its bucket for 1, 7, 10, 16 and 128 buckets. The values
 * are those of Fluss's IcebergKeyEncoderTest / IcebergBucketingFunctionTest plus edge cases.
 */
const GOLDEN: [string, DataType, Value, string, number[]][] = [
  ['INT 42', DataTypes.INT(), 42, '2a00000000000000', [0, 3, 6, 14, 62]],
  ['INT 0', DataTypes.INT(), 0, '0000000000000000', [0, 1, 6, 12, 124]],
  ['INT -1', DataTypes.INT(), -1, 'ffffffffffffffff', [0, 5, 2, 8, 104]],
  ['INT max', DataTypes.INT(), 2147483647, 'ffffff7f00000000', [0, 6, 6, 14, 62]],
  ['INT min', DataTypes.INT(), -2147483648, '00000080ffffffff', [0, 6, 6, 8, 88]],
  ['BIGINT', DataTypes.BIGINT(), 1234567890123456789n, '1581e97df4102211', [0, 5, 9, 1, 65]],
  ['BIGINT -7', DataTypes.BIGINT(), -7n, 'f9ffffffffffffff', [0, 1, 5, 5, 117]],
  ['BIGINT min', DataTypes.BIGINT(), -(2n ** 63n), '0000000000000080', [0, 4, 9, 5, 37]],
  [
    'STRING',
    DataTypes.STRING(),
    'Hello Iceberg, Fluss this side!',
    '48656c6c6f20496365626572672c20466c7573732074686973207369646521',
    [0, 5, 1, 13, 13],
  ],
  [
    'STRING utf-8',
    DataTypes.STRING(),
    'été 日本 😀',
    'c3a974c3a920e697a5e69cac20f09f9880',
    [0, 2, 4, 10, 106],
  ],
  ['CHAR', DataTypes.CHAR(3), 'abc', '616263', [0, 1, 4, 10, 122]],
  ['DECIMAL 123.45', DataTypes.DECIMAL(10, 2), Decimal.parse('123.45', 2), '3039', [0, 1, 8, 4, 36]],
  ['DECIMAL -123.45', DataTypes.DECIMAL(10, 2), Decimal.parse('-123.45', 2), 'cfc7', [0, 3, 9, 13, 93]],
  ['DECIMAL 0', DataTypes.DECIMAL(10, 2), Decimal.parse('0', 2), '00', [0, 6, 7, 7, 55]],
  ['DECIMAL 1.28', DataTypes.DECIMAL(10, 2), Decimal.parse('1.28', 2), '0080', [0, 2, 9, 5, 21]],
  [
    'DECIMAL(38, 10)',
    DataTypes.DECIMAL(38, 10),
    Decimal.parse('-1234567890123456789012.3456789012', 10),
    'ff642cf5c39ba6bc22e96f5fc5ec',
    [0, 2, 0, 14, 62],
  ],
  [
    'TIMESTAMP(6)',
    DataTypes.TIMESTAMP(6),
    new Timestamp(1698235273182, 123456),
    'abfb333689080600',
    [0, 2, 9, 5, 69],
  ],
  [
    'TIMESTAMP before 1970',
    DataTypes.TIMESTAMP(6),
    new Timestamp(-1, 999999),
    'ffffffffffffffff',
    [0, 5, 2, 8, 104],
  ],
  [
    'TIMESTAMP(3)',
    DataTypes.TIMESTAMP(3),
    new Timestamp(1698235273182, 0),
    '30fb333689080600',
    [0, 3, 8, 14, 94],
  ],
  ['DATE', DataTypes.DATE(), 19655, 'c74c000000000000', [0, 4, 9, 11, 91]],
  ['DATE before 1970', DataTypes.DATE(), -1, 'ffffffffffffffff', [0, 5, 2, 8, 104]],
  ['TIME', DataTypes.TIME(), 34200000, '00967af607000000', [0, 6, 9, 15, 47]],
  [
    'BYTES',
    DataTypes.BYTES(),
    new TextEncoder().encode('Hello i only understand binary data'),
    '48656c6c6f2069206f6e6c7920756e6465727374616e642062696e6172792064617461',
    [0, 1, 9, 3, 83],
  ],
  ['BINARY(3)', DataTypes.BINARY(3), Uint8Array.of(1, 2, 0xff), '0102ff', [0, 4, 6, 6, 70]],
  ['FLOAT', DataTypes.FLOAT(), Math.fround(3.14), 'c3f54840', [0, 5, 7, 7, 55]],
  ['FLOAT -0', DataTypes.FLOAT(), -0, '00000080', [0, 6, 6, 4, 20]],
  ['DOUBLE', DataTypes.DOUBLE(), -1234.5678, 'adfa5c6d454a93c0', [0, 4, 7, 1, 1]],
]

describe('IcebergKeyEncoder', () => {
  it.each(GOLDEN)('encodes and buckets %s as Fluss does', (_label, type, value, hex, buckets) => {
    const key = encode(type, value)
    expect(key.toString('hex')).toBe(hex)
    expect([1, 7, 10, 16, 128].map(n => icebergBucketForKey(key, n))).toEqual(buckets)
  })

  it.each(GOLDEN)('decodes %s back to its value', (_label, type, value, hex) => {
    const decoded = new IcebergKeyDecoder(keyType(type), ['k']).decodeKey(Buffer.from(hex, 'hex'))
    // Keys hold microseconds: nanoseconds below a microsecond are not kept.
    const expected = value instanceof Timestamp ? Timestamp.fromMicros(value.toMicros()) : value
    expect(decoded).toEqual([expected])
  })

  it('encodes only the key column of a wider row', () => {
    const type = DataTypes.ROW([
      { name: 'name', type: DataTypes.STRING(), fieldId: 0 },
      { name: 'id', type: DataTypes.INT(), fieldId: 1 },
    ])
    const encoder = new IcebergKeyEncoder(type, ['id'])
    expect(encoder.encodeKey(['ignored', 42]).toString('hex')).toBe('2a00000000000000')
    // The view is reused; encodeKey's result is not.
    const owned = encoder.encodeKey(['x', 1])
    encoder.encodeKeyView(['x', 2])
    expect(owned.toString('hex')).toBe('0100000000000000')
  })

  it('rescales decimals of another scale to the column scale', () => {
    expect(encode(DataTypes.DECIMAL(10, 2), Decimal.parse('123.4', 1)).toString('hex')).toBe('3034')
  })

  it("refuses keys of several columns with Fluss's message", () => {
    const type = DataTypes.ROW([
      { name: 'id', type: DataTypes.INT(), fieldId: 0 },
      { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
    ])
    for (const make of [
      () => new IcebergKeyEncoder(type, ['id', 'name']),
      () => new IcebergKeyDecoder(type, ['id', 'name']),
    ]) {
      expect(make).toThrow(
        expect.objectContaining({
          errorName: 'INVALID_CONFIG_EXCEPTION',
          message: 'Key fields must have exactly one field for iceberg format, but got: [id, name]',
        }),
      )
    }
    expect(() => new IcebergKeyEncoder(type, [])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })

  it.each<[DataType, string]>([
    [DataTypes.BOOLEAN(), 'Unsupported type for Iceberg binary row writer: BOOLEAN'],
    [DataTypes.TINYINT(), 'Unsupported type for Iceberg binary row writer: TINYINT'],
    [DataTypes.SMALLINT(), 'Unsupported type for Iceberg binary row writer: SMALLINT'],
    [DataTypes.TIMESTAMP_LTZ(6), 'Unsupported type for Iceberg binary row writer: TIMESTAMP_LTZ(6)'],
    [
      DataTypes.ARRAY(DataTypes.INT()),
      'Array types cannot be used as bucket keys. Bucket keys must be scalar types.',
    ],
    [
      DataTypes.MAP(DataTypes.INT(), DataTypes.INT()),
      'Map types cannot be used as bucket keys. Bucket keys must be scalar types.',
    ],
  ])('refuses %o keys', (type, message) => {
    expect(() => new IcebergKeyEncoder(keyType(type), ['k'])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION', message }),
    )
    expect(() => new IcebergKeyDecoder(keyType(type), ['k'])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })

  it('refuses unknown key columns, null and mistyped values with INVALID_REQUEST', () => {
    expect(() => new IcebergKeyEncoder(keyType(DataTypes.INT()), ['nope'])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
    const encoder = new IcebergKeyEncoder(keyType(DataTypes.INT(), 'id'), ['id'])
    expect(() => encoder.encodeKey([null])).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: 'Null value is not allowed for iceberg key encoder in position 0 with type INT.',
      }),
    )
    expect(() => encoder.encodeKey(['42'])).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() => encoder.encodeKey([2 ** 31])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
    const decimal = new IcebergKeyEncoder(keyType(DataTypes.DECIMAL(4, 2)), ['k'])
    expect(() => decimal.encodeKey([Decimal.parse('123.45', 2)])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
  })
})

describe('IcebergKeyDecoder', () => {
  it('refuses corrupt keys with CORRUPT_RECORD_EXCEPTION', () => {
    const corrupt = expect.objectContaining({ errorName: 'CORRUPT_RECORD_EXCEPTION' })
    const decode = (type: DataType, bytes: number[]) =>
      new IcebergKeyDecoder(keyType(type), ['k']).decodeKey(Uint8Array.from(bytes))
    expect(() => decode(DataTypes.BIGINT(), [1, 2, 3])).toThrow(corrupt)
    expect(() => decode(DataTypes.INT(), [1, 0, 0, 0])).toThrow(corrupt)
    expect(() => decode(DataTypes.TIMESTAMP(6), [])).toThrow(corrupt)
    expect(() => decode(DataTypes.FLOAT(), [0, 0, 0, 0, 0, 0, 0, 0])).toThrow(corrupt)
    expect(() => decode(DataTypes.DOUBLE(), [0, 0, 0, 0])).toThrow(corrupt)
    expect(() => decode(DataTypes.DECIMAL(10, 2), [])).toThrow(corrupt)
  })
})
