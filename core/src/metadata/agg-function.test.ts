import { describe, expect, it } from 'vitest'
import { expectFlussError } from '../testing/expect-error.js'
import { type DataType, DataTypes } from '../types/data-type.js'
import { type AggFunction, AggFunctions, aggFunctionProblem, parseAggFunctionType } from './agg-function.js'
import { Schema } from './schema.js'
import { TableDescriptor } from './table-descriptor.js'
import { validateTableDescriptor } from './validation.js'

/** An aggregation table (k INT primary key, v of `type` aggregated with `fn`). */
function aggregationTable(type: DataType, fn: AggFunction): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('k', DataTypes.INT())
    .column('v', type, fn)
    .primaryKey('k')
    .build()
  return TableDescriptor.builder()
    .schema(schema)
    .distributedBy(1)
    .property('table.replication.factor', '1')
    .property('table.merge-engine', 'aggregation')
    .build()
}

describe('roaring bitmap aggregate functions', () => {
  it('parse from their Fluss names', () => {
    expect(parseAggFunctionType('RBM64')).toBe('rbm64')
    expect(parseAggFunctionType('rbm32')).toBe('rbm32')
  })

  it.each([AggFunctions.RBM64(), AggFunctions.RBM32()])('$type is accepted on BYTES columns', fn => {
    expect(aggFunctionProblem(fn, DataTypes.BYTES())).toBeUndefined()
    expect(() =>
      validateTableDescriptor(aggregationTable(DataTypes.BYTES(), fn), { maxBucketNum: 16 }),
    ).not.toThrow()
  })

  it.each([
    [DataTypes.BINARY(16), 'BINARY(16)'],
    [DataTypes.STRING(), 'STRING'],
    [DataTypes.BIGINT(), 'BIGINT'],
  ] as const)('rbm64 on %s is refused when the table is created', (type, name) => {
    expectFlussError(
      () => validateTableDescriptor(aggregationTable(type, AggFunctions.RBM64()), { maxBucketNum: 16 }),
      'INVALID_CONFIG_EXCEPTION',
      `Invalid aggregation function for column 'v': Data type for rbm64 column must be part of [BYTES] but was '${name}'.`,
    )
  })
})
