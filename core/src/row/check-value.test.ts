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
    [DataTypes.ARRAY(DataTypes.INT()), [1, 'x'], /value "x" for column 'c\[1\]' of type INT: .*INT range/],
    [DataTypes.ARRAY(DataTypes.INT()), new Set([1]) as unknown as Value, /column 'c' .*expected an array/],
    [DataTypes.ARRAY(notNull(DataTypes.INT())), [1, null], /column 'c\[1\]' of type INT NOT NULL: null/],
    [
      DataTypes.ARRAY(DataTypes.INT()),
      new Array<Value>(3).fill(1, 0, 1),
      /value undefined for column 'c\[1\]'/,
    ],
    [
      DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()),
      new Map([[null, 1]]),
      /column 'c\{#0 key\}'.*NOT NULL/,
    ],
    [DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), { a: 1 } as unknown as Value, /expected a Map/],
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

  it('names the path to a bad value deep inside a nested column', () => {
    const score = DataTypes.ROW([
      { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
      { name: 'score', type: DataTypes.INT(), fieldId: 2 },
    ])
    const tags = DataTypes.ARRAY(score)
    const good: Value = [['a', 1], null, ['b', null], ['c', 3]]
    expect(() => checkValue(tags, good, 'tags')).not.toThrow()
    const bad: Value = [['a', 1], null, ['b', null], ['c', 3.5]]
    expect(invalid(() => checkValue(tags, bad, 'tags')).message).toBe(
      "Invalid value 3.5 for column 'tags[3].score' of type INT: expected an integer number in the INT range",
    )
    const prices = DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(DataTypes.DECIMAL(5, 2)))
    const eur = new Map<Value, Value>([['EUR', [new Decimal(1n, 0), new Decimal(1n, 3)]]])
    expect(invalid(() => checkValue(prices, eur, 'prices')).message).toMatch(
      /column 'prices\["EUR"\]\[1\]' of type DECIMAL\(5, 2\): more than 2 fraction digits/,
    )
    const byArray = DataTypes.MAP(DataTypes.ARRAY(DataTypes.INT()), DataTypes.BOOLEAN())
    const keys = new Map<Value, Value>([
      [[1], true],
      [[2], 0],
    ])
    expect(invalid(() => checkValue(byArray, keys, 'm')).message).toMatch(
      /column 'm\{#1 value\}' of type BOOLEAN/,
    )
    const counts = DataTypes.MAP(DataTypes.INT(), DataTypes.ARRAY(DataTypes.STRING()))
    expect(invalid(() => checkValue(counts, new Map([[7, 'x']]), 'n')).message).toMatch(
      /column 'n\[7\]' of type ARRAY<STRING>: expected an array/,
    )
    const nested = DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.ROW([{ name: 'x', type: score, fieldId: 3 }])))
    expect(invalid(() => checkValue(nested, [[], [[['n', 1]], [['n', 'two']]]], 'deep')).message).toMatch(
      /column 'deep\[1\]\[1\].x.score'/,
    )
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
