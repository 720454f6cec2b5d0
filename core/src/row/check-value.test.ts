import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { type DataType, DataTypes, notNull } from '../types/data-type.js'
import { checkValue, unscaledForColumn } from './check-value.js'
import { CompactedRowEncoder } from './compacted/compacted-row.js'
import { Decimal, Timestamp, type Value } from './value.js'

function invalid(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('INVALID_REQUEST')
    return e as FlussError
  }
  throw new Error('expected INVALID_REQUEST')
}

describe('checkValue', () => {
  it.each<[DataType, Value, RegExp]>([
    [notNull(DataTypes.INT()), null, /column 'c' of type INT NOT NULL: the column is NOT NULL/],
    [DataTypes.BOOLEAN(), 1, /expected a boolean/],
    [DataTypes.TINYINT(), 128, /\[-128, 127\]/],
    [DataTypes.TINYINT(), 1.5, /integer/],
    [DataTypes.SMALLINT(), -32_769, /\[-32768, 32767\]/],
    [DataTypes.INT(), 2_147_483_648, /INT range/],
    [DataTypes.INT(), '1', /INT range/],
    [DataTypes.DATE(), 0.5, /INT range/],
    [DataTypes.TIME(), 86_400_000, /milliseconds of the day/],
    [DataTypes.TIME(), -1, /milliseconds of the day/],
    [DataTypes.BIGINT(), 1, /expected a bigint/],
    [DataTypes.BIGINT(), 2n ** 63n, /BIGINT range/],
    [DataTypes.BIGINT(), -(2n ** 63n) - 1n, /BIGINT range/],
    [DataTypes.FLOAT(), 1e39, /FLOAT range/],
    [DataTypes.DOUBLE(), 1n, /expected a number/],
    [DataTypes.STRING(), 5, /expected a string/],
    [DataTypes.STRING(), 'a\ud800b', /lone surrogate/],
    [DataTypes.CHAR(2), 'abc', /3 characters exceed the length 2/],
    [DataTypes.BYTES(), [1, 2], /Uint8Array/],
    [DataTypes.BINARY(4), new Uint8Array(3), /exactly 4 bytes, got 3/],
    [DataTypes.DECIMAL(5, 2), 1.5, /expected a Decimal/],
    [DataTypes.DECIMAL(5, 2), new Decimal(100000n, 2), /exceeds precision 5/],
    [DataTypes.DECIMAL(5, 2), new Decimal(1000n, 0), /exceeds precision 5/],
    [DataTypes.DECIMAL(5, 2), new Decimal(1234n, 3), /more than 2 fraction digits/],
    [DataTypes.DECIMAL(38, 0), new Decimal(-(10n ** 38n), 0), /exceeds precision 38/],
    [DataTypes.TIMESTAMP(6), new Date(0) as unknown as Value, /expected a Timestamp/],
    [DataTypes.TIMESTAMP(6), new Timestamp(0, 1_000_000), /nanoOfMillis/],
    [DataTypes.TIMESTAMP_LTZ(3), new Timestamp(2 ** 53, 0), /safe integer/],
    [DataTypes.ARRAY(DataTypes.INT()), [1, 'x'], /column 'c\[\]'/],
    [DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), new Map([[null, 1]]), /column 'c\{key\}'.*NOT NULL/],
  ])('rejects %o value %o', (type, value, message) => {
    expect(invalid(() => checkValue(type, value, 'c')).message).toMatch(message)
  })

  it.each<[DataType, Value]>([
    [DataTypes.INT(), null],
    [DataTypes.INT(), -0],
    [DataTypes.FLOAT(), Number.NaN],
    [DataTypes.FLOAT(), Infinity],
    [DataTypes.CHAR(2), '😀😀'],
    [DataTypes.CHAR(2), 'a'],
    [DataTypes.DECIMAL(5, 2), new Decimal(99999n, 2)],
    [DataTypes.DECIMAL(5, 2), new Decimal(-12300n, 4)],
    [DataTypes.DECIMAL(5, 2), new Decimal(1n, 0)],
    [DataTypes.BIGINT(), -(2n ** 63n)],
    [DataTypes.TIME(9), 86_399_999],
    [DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), new Map<Value, Value>([['a', null]])],
  ])('accepts %o value %o', (type, value) => {
    expect(() => checkValue(type, value, 'c')).not.toThrow()
  })

  it('names nested ROW fields in the message', () => {
    const type = DataTypes.ROW([{ name: 'inner', type: notNull(DataTypes.STRING()), fieldId: 0 }])
    expect(invalid(() => checkValue(type, [null], 'outer')).message).toMatch(/column 'outer.inner'/)
    expect(invalid(() => checkValue(type, [], 'outer')).message).toMatch(/expected 1 field values, got 0/)
  })

  it('is applied by the row encoder, naming the column and returning nothing', () => {
    const type = DataTypes.ROW([
      { name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 },
      { name: 'amount', type: DataTypes.DECIMAL(4, 2), fieldId: 1 },
    ])
    const encoder = new CompactedRowEncoder(type)
    expect(invalid(() => encoder.encode([null, null])).message).toMatch(/column 'id'.*NOT NULL/)
    expect(invalid(() => encoder.encode([1, new Decimal(100000n, 2)])).message).toMatch(
      /Invalid value Decimal\(1000.00\) for column 'amount' of type DECIMAL\(4, 2\): exceeds precision 4/,
    )
    expect(invalid(() => encoder.encode([1])).message).toMatch(/Expected a row of 2 values, got 1 values/)
    expect(invalid(() => encoder.encode([1, undefined as unknown as Value])).message).toMatch(/'amount'/)
    expect(encoder.encode([1, null]).toString('hex')).toBe('0201')
  })

  it('rescales decimals exactly to the column scale for unscaled writers', () => {
    expect(unscaledForColumn(DataTypes.DECIMAL(10, 3), new Decimal(15n, 1), 'd')).toBe(1500n)
    expect(unscaledForColumn(DataTypes.DECIMAL(10, 1), new Decimal(-1500n, 3), 'd')).toBe(-15n)
    expect(
      invalid(() => unscaledForColumn(DataTypes.DECIMAL(10, 1), new Decimal(1501n, 3), 'd')).message,
    ).toMatch(/column 'd'.*more than 1 fraction digits/)
  })
})
