import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { type DataType, DataTypes, type RowType } from '../types/data-type.js'
import { CompactedKeyDecoder, CompactedKeyEncoder, encodeBucketKey } from './key-encoder.js'
import { Decimal, type Row, Timestamp } from './value.js'

function rowType(types: DataType[], names = types.map((_, i) => `f${i}`)): RowType {
  return DataTypes.ROW(types.map((type, i) => ({ name: names[i], type, fieldId: i })))
}

describe('CompactedKeyEncoder', () => {
  it('encodes key (INT 1, BIGINT 3, INT 2) as 01 03 02, with no null bit set', () => {
    const encoder = new CompactedKeyEncoder(rowType([DataTypes.INT(), DataTypes.BIGINT(), DataTypes.INT()]))
    expect([...encoder.encodeKey([1, 3n, 2])]).toEqual([1, 3, 2])
    expect([...encoder.encodeKey([2, 5n, 6])]).toEqual([2, 5, 6])
  })

  it('encodes only the key columns, in key order', () => {
    const type = rowType([DataTypes.INT(), DataTypes.BIGINT(), DataTypes.INT(), DataTypes.STRING()])
    const encoder = new CompactedKeyEncoder(type, [0, 1, 2])
    expect([...encoder.encodeKey([1, 3n, 2, 'a1'])]).toEqual([1, 3, 2])
    const reordered = new CompactedKeyEncoder(type, [3, 0])
    expect(reordered.encodeKey([1, 3n, 2, 'a1']).toString('hex')).toBe('02613101')
  })

  it("rejects a null key value with Fluss's message", () => {
    const type = rowType([DataTypes.INT(), DataTypes.BIGINT(), DataTypes.INT(), DataTypes.STRING()])
    const encoder = new CompactedKeyEncoder(type, [0, 1, 2])
    const error = (() => {
      try {
        encoder.encodeKey([1, 2n, null, 'a2'])
      } catch (e) {
        return e as FlussError
      }
    })()
    expect(error).toBeInstanceOf(FlussError)
    expect(error?.errorName).toBe('INVALID_REQUEST')
    expect(error?.message).toBe(
      'Null value is not allowed for compacted key encoder in position 2 with type INT.',
    )
  })

  it('checks key values like row values', () => {
    const encoder = CompactedKeyEncoder.of(rowType([DataTypes.INT()], ['id']), ['id'])
    expect(() => encoder.encodeKey(['1'])).toThrow(/column 'id' of type INT/)
  })

  it('rejects unknown key columns', () => {
    const type = rowType([DataTypes.INT()], ['id'])
    expect(() => CompactedKeyEncoder.of(type, ['nope'])).toThrow(
      /Field nope not found in input row type \(id\)/,
    )
  })

  it('decodes the named key back from its bytes', () => {
    const type = rowType(
      [DataTypes.STRING(), DataTypes.BIGINT(), DataTypes.STRING()],
      ['partition', 'f1', 'f2'],
    )
    const bytes = CompactedKeyEncoder.of(type, ['f2']).encodeKey(['p1', 1n, 'a2'])
    expect(CompactedKeyDecoder.of(type, ['f2']).decodeKey(bytes)).toEqual(['a2'])
  })

  it('round-trips keys of every primitive type', () => {
    const types = [
      DataTypes.BOOLEAN(),
      DataTypes.TINYINT(),
      DataTypes.SMALLINT(),
      DataTypes.INT(),
      DataTypes.BIGINT(),
      DataTypes.FLOAT(),
      DataTypes.DOUBLE(),
      DataTypes.STRING(),
      DataTypes.CHAR(2),
      DataTypes.BYTES(),
      DataTypes.BINARY(2),
      DataTypes.DECIMAL(10, 2),
      DataTypes.DECIMAL(30, 2),
      DataTypes.DATE(),
      DataTypes.TIME(),
      DataTypes.TIMESTAMP(9),
      DataTypes.TIMESTAMP_LTZ(3),
    ]
    const key: Row = [
      true,
      -5,
      300,
      -1,
      -(2n ** 63n),
      0.5,
      1e300,
      'κλειδί',
      'ab',
      new Uint8Array([0]),
      new Uint8Array([1, 2]),
      new Decimal(-12345n, 2),
      new Decimal(10n ** 29n, 2),
      19_000,
      1,
      new Timestamp(-5, 7),
      new Timestamp(1_700_000_000_000),
    ]
    const type = rowType(types)
    expect(new CompactedKeyDecoder(type).decodeKey(new CompactedKeyEncoder(type).encodeKey(key))).toEqual(key)
  })

  it('makes the bucket key a byte prefix of the primary key when it is a PK prefix', () => {
    const type = rowType(
      [DataTypes.STRING(), DataTypes.INT(), DataTypes.BIGINT(), DataTypes.DOUBLE()],
      ['a', 'b', 'c', 'v'],
    )
    const row: Row = ['user-ä', -7, 2n ** 40n, 1.5]
    const pk = CompactedKeyEncoder.of(type, ['a', 'b', 'c']).encodeKey(row)
    for (const bucketKey of [['a'], ['a', 'b']]) {
      const bk = encodeBucketKey(row, type, bucketKey)
      expect(bk.length).toBeLessThan(pk.length)
      expect(pk.subarray(0, bk.length).equals(bk)).toBe(true)
    }
    expect(encodeBucketKey(row, type, ['a', 'b', 'c']).equals(pk)).toBe(true)
  })
})
