import { type AggFunction, AggFunctions } from '@sluice/core/metadata'
import { Decimal, Timestamp, type Value } from '@sluice/core/row'
import { type DataType, DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { createFieldAggregator } from './field-aggregators.js'
import { bitmap32Of, bitmap32Values, deserializeBitmap32, serializeBitmap32 } from './roaring-bitmap32.js'
import { bitmap64Of, bitmap64Values, deserializeBitmap64, serializeBitmap64 } from './roaring-bitmap64.js'

function agg(fn: AggFunction, type: DataType, ...inputs: Value[]): Value {
  const f = createFieldAggregator(fn, type, 'v')
  return inputs.reduce((acc, input) => f(acc, input))
}

describe('aggregate functions', () => {
  it.each([
    ['TINYINT', DataTypes.TINYINT(), 5, 3, 8],
    ['SMALLINT', DataTypes.SMALLINT(), 10, 20, 30],
    ['INT', DataTypes.INT(), 1000, 2000, 3000],
    ['BIGINT', DataTypes.BIGINT(), 10000n, 20000n, 30000n],
    ['FLOAT', DataTypes.FLOAT(), 1.5, 2.5, 4.0],
    ['DOUBLE', DataTypes.DOUBLE(), 10.5, 20.5, 31.0],
  ] as const)('sum %s', (_name, type, a, b, expected) => {
    expect(agg(AggFunctions.SUM(), type, a, b)).toEqual(expected)
    expect(agg(AggFunctions.SUM(), type, null, b)).toEqual(b)
    expect(agg(AggFunctions.SUM(), type, a, null)).toEqual(a)
  })

  it('sum wraps integers like Java and rounds FLOAT to single precision', () => {
    expect(agg(AggFunctions.SUM(), DataTypes.TINYINT(), 127, 1)).toBe(-128)
    expect(agg(AggFunctions.SUM(), DataTypes.SMALLINT(), 32767, 2)).toBe(-32767)
    expect(agg(AggFunctions.SUM(), DataTypes.INT(), 2147483647, 1)).toBe(-2147483648)
    expect(agg(AggFunctions.SUM(), DataTypes.BIGINT(), 9223372036854775807n, 1n)).toBe(-9223372036854775808n)
    expect(agg(AggFunctions.SUM(), DataTypes.FLOAT(), 0.1, 0.2)).toBe(Math.fround(0.1 + 0.2))
  })

  it('sum and product of DECIMAL keep the column precision and scale; overflow is NULL', () => {
    const type = DataTypes.DECIMAL(5, 2)
    expect(agg(AggFunctions.SUM(), type, new Decimal(12345n, 2), new Decimal(100n, 2))).toEqual(
      new Decimal(12445n, 2),
    )
    expect(agg(AggFunctions.SUM(), type, new Decimal(99999n, 2), new Decimal(1n, 2))).toBeNull()
    // 1.25 * 1.25 = 1.5625 -> HALF_UP -> 1.56; 1.05 * 1.05 = 1.1025 -> 1.10; -1.5 * 1.01 = -1.515 -> -1.52
    expect(agg(AggFunctions.PRODUCT(), type, new Decimal(125n, 2), new Decimal(125n, 2))).toEqual(
      new Decimal(156n, 2),
    )
    expect(agg(AggFunctions.PRODUCT(), type, new Decimal(105n, 2), new Decimal(105n, 2))).toEqual(
      new Decimal(110n, 2),
    )
    expect(agg(AggFunctions.PRODUCT(), type, new Decimal(-150n, 2), new Decimal(101n, 2))).toEqual(
      new Decimal(-152n, 2),
    )
  })

  it('product', () => {
    expect(agg(AggFunctions.PRODUCT(), DataTypes.TINYINT(), 5, 3)).toBe(15)
    expect(agg(AggFunctions.PRODUCT(), DataTypes.INT(), 100, 200)).toBe(20000)
    expect(agg(AggFunctions.PRODUCT(), DataTypes.INT(), 65536, 65536)).toBe(0)
    expect(agg(AggFunctions.PRODUCT(), DataTypes.BIGINT(), 100n, 200n)).toBe(20000n)
    expect(agg(AggFunctions.PRODUCT(), DataTypes.DOUBLE(), 0.9, 0.8)).toBe(0.7200000000000001)
    expect(agg(AggFunctions.PRODUCT(), DataTypes.DOUBLE(), null, 0.8)).toBe(0.8)
  })

  it('max and min, nulls ignored, strings by code point, timestamps by instant', () => {
    expect(agg(AggFunctions.MAX(), DataTypes.INT(), 1000, 2000)).toBe(2000)
    expect(agg(AggFunctions.MIN(), DataTypes.INT(), 1000, 2000)).toBe(1000)
    expect(agg(AggFunctions.MAX(), DataTypes.STRING(), 'apple', 'banana')).toBe('banana')
    expect(agg(AggFunctions.MIN(), DataTypes.STRING(), '', 'test')).toBe('')
    // U+1F600 (a surrogate pair in UTF-16) sorts above U+FF5E in code point order.
    expect(agg(AggFunctions.MAX(), DataTypes.STRING(), '\u{1F600}', '\uFF5E')).toBe('\u{1F600}')
    const t1 = new Timestamp(1000, 5)
    const t2 = new Timestamp(1000, 6)
    expect(agg(AggFunctions.MAX(), DataTypes.TIMESTAMP(9), t1, t2)).toBe(t2)
    expect(agg(AggFunctions.MIN(), DataTypes.TIMESTAMP_LTZ(9), t1, null)).toBe(t1)
    expect(
      agg(AggFunctions.MAX(), DataTypes.DECIMAL(10, 2), new Decimal(5n, 2), new Decimal(-7n, 2)),
    ).toEqual(new Decimal(5n, 2))
    expect(agg(AggFunctions.MAX(), DataTypes.DOUBLE(), -0, 0)).toBe(0)
    expect(agg(AggFunctions.MAX(), DataTypes.DOUBLE(), 1, Number.NaN)).toBeNaN()
    expect(agg(AggFunctions.MAX(), DataTypes.BIGINT(), null, null)).toBeNull()
  })

  it('last_value overwrites with nulls; last_value_ignore_nulls keeps the previous value', () => {
    expect(agg(AggFunctions.LAST_VALUE(), DataTypes.INT(), 1, 2, null)).toBeNull()
    expect(agg(AggFunctions.LAST_VALUE_IGNORE_NULLS(), DataTypes.INT(), 1, 2, null)).toBe(2)
  })

  it('first_value keeps the first non-null value (a stored NULL is replaced, as in Fluss code)', () => {
    expect(agg(AggFunctions.FIRST_VALUE(), DataTypes.INT(), 10, 20)).toBe(10)
    expect(agg(AggFunctions.FIRST_VALUE(), DataTypes.INT(), null, 20, 30)).toBe(20)
    expect(agg(AggFunctions.FIRST_VALUE_IGNORE_NULLS(), DataTypes.STRING(), null, 'test', 'x')).toBe('test')
  })

  it('listagg and string_agg join with the delimiter (default comma) and skip nulls', () => {
    expect(agg(AggFunctions.LISTAGG(), DataTypes.STRING(), 'apple', 'banana', 'cherry')).toBe(
      'apple,banana,cherry',
    )
    expect(agg(AggFunctions.LISTAGG('|'), DataTypes.STRING(), 'a', 'b', 'c')).toBe('a|b|c')
    expect(agg(AggFunctions.STRING_AGG(), DataTypes.STRING(), 'a', null, 'b')).toBe('a,b')
  })

  it('bool_and and bool_or ignore nulls', () => {
    expect(agg(AggFunctions.BOOL_AND(), DataTypes.BOOLEAN(), true, true)).toBe(true)
    expect(agg(AggFunctions.BOOL_AND(), DataTypes.BOOLEAN(), true, false)).toBe(false)
    expect(agg(AggFunctions.BOOL_AND(), DataTypes.BOOLEAN(), null, true)).toBe(true)
    expect(agg(AggFunctions.BOOL_OR(), DataTypes.BOOLEAN(), false, false)).toBe(false)
    expect(agg(AggFunctions.BOOL_OR(), DataTypes.BOOLEAN(), false, true)).toBe(true)
    expect(agg(AggFunctions.BOOL_OR(), DataTypes.BOOLEAN(), null, false)).toBe(false)
  })

  it('rbm32 ORs serialized bitmaps', () => {
    const merged = agg(
      AggFunctions.RBM32(),
      DataTypes.BYTES(),
      serializeBitmap32(bitmap32Of([1, 2])),
      serializeBitmap32(bitmap32Of([2, 3])),
    )
    expect(bitmap32Values(deserializeBitmap32(merged as Uint8Array))).toEqual([1, 2, 3])
    expect(agg(AggFunctions.RBM32(), DataTypes.BYTES(), null, new Uint8Array([1]))).toEqual(
      new Uint8Array([1]),
    )
  })

  it('rbm64 ORs serialized 64-bit bitmaps and ignores nulls', () => {
    const merged = agg(
      AggFunctions.RBM64(),
      DataTypes.BYTES(),
      serializeBitmap64(bitmap64Of([10, 20])),
      null,
      serializeBitmap64(bitmap64Of([20, 30, -1n])),
    )
    expect(bitmap64Values(deserializeBitmap64(merged as Uint8Array))).toEqual([
      10n,
      20n,
      30n,
      (1n << 64n) - 1n,
    ])
    const bytes = serializeBitmap64(bitmap64Of([1n << 40n]))
    expect(agg(AggFunctions.RBM64(), DataTypes.BYTES(), null, bytes)).toBe(bytes)
    expect(agg(AggFunctions.RBM64(), DataTypes.BYTES(), bytes, null)).toBe(bytes)
    expect(agg(AggFunctions.RBM64(), DataTypes.BYTES(), null, null)).toBeNull()
  })

  it('rbm64 refuses malformed bitmaps with INVALID_REQUEST', () => {
    const good = serializeBitmap64(bitmap64Of([1]))
    for (const bad of [new Uint8Array([1]), new Uint8Array([7]), good.subarray(0, good.length - 1)]) {
      expect(() => agg(AggFunctions.RBM64(), DataTypes.BYTES(), good, bad)).toThrow(
        expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
      )
      expect(() => agg(AggFunctions.RBM64(), DataTypes.BYTES(), bad, good)).toThrow(
        expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
      )
    }
  })

  it.each([
    [DataTypes.STRING(), 'STRING'],
    [DataTypes.BINARY(8), 'BINARY(8)'],
    [DataTypes.BIGINT(), 'BIGINT'],
  ] as const)('rbm64 and rbm32 only aggregate BYTES columns, not %s', (type, name) => {
    for (const fn of [AggFunctions.RBM64(), AggFunctions.RBM32()]) {
      expect(() => createFieldAggregator(fn, type, 'v')).toThrow(
        expect.objectContaining({
          errorName: 'INVALID_CONFIG_EXCEPTION',
          message: `Invalid aggregation function for column v: Data type for ${fn.type} column must be part of [BYTES] but was '${name}'.`,
        }),
      )
    }
  })

  it('refuses a function that does not fit the column type', () => {
    expect(() => createFieldAggregator(AggFunctions.SUM(), DataTypes.STRING(), 'v')).toThrow(
      /Invalid aggregation function for column v/,
    )
  })
})
