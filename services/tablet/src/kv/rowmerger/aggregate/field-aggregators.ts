import { FlussError } from '@sluice/core/errors'
import { type AggFunction, aggFunctionProblem, PARAM_DELIMITER } from '@sluice/core/metadata'
import type { Value } from '@sluice/core/row'
import type { DataType } from '@sluice/core/types'
import { orSerializedBitmap32 } from './roaring-bitmap32.js'
import { orSerializedBitmap64 } from './roaring-bitmap64.js'
import { comparatorFor, numericArithmetic } from './value-compare.js'

/**
 * One column's aggregate function (Fluss's `FieldAggregator`): the merged value of the stored
 * accumulator and the new input. No function supports retraction.
 */
export type FieldAggregator = (accumulator: Value, input: Value) => Value

/** Fluss's `AggFunctions.DEFAULT_LISTAGG_DELIMITER`. */
export const DEFAULT_LISTAGG_DELIMITER = ','

/** Null rule shared by most functions: a null side yields the other side. */
function ignoringNulls(f: (acc: Value, input: Value) => Value): FieldAggregator {
  return (acc, input) => (acc === null ? input : input === null ? acc : f(acc, input))
}

export const lastValue: FieldAggregator = (_acc, input) => input
const lastValueIgnoreNulls: FieldAggregator = (acc, input) => (input === null ? acc : input)
/** first_value as Fluss's code does it: a stored NULL is replaced by the next input. */
const firstValue: FieldAggregator = (acc, input) => (acc !== null ? acc : input)

/**
 * Compiles `fn` for a column of `type`. Functions that do not fit the type (or carry unknown
 * parameters) were refused when the table was created; meeting one here is INVALID_CONFIG_EXCEPTION.
 */
export function createFieldAggregator(fn: AggFunction, type: DataType, column: string): FieldAggregator {
  const problem = aggFunctionProblem(fn, type)
  if (problem !== undefined) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Invalid aggregation function for column ${column}: ${problem}`,
    )
  }
  switch (fn.type) {
    case 'sum':
    case 'product':
      return ignoringNulls(numericArithmetic(fn.type, type))
    case 'max': {
      const compare = comparatorFor(type)
      return ignoringNulls((acc, input) => (compare(acc, input) < 0 ? input : acc))
    }
    case 'min': {
      const compare = comparatorFor(type)
      return ignoringNulls((acc, input) => (compare(acc, input) < 0 ? acc : input))
    }
    case 'last_value':
      return lastValue
    case 'last_value_ignore_nulls':
      return lastValueIgnoreNulls
    case 'first_value':
    case 'first_value_ignore_nulls':
      return firstValue
    case 'listagg':
    case 'string_agg': {
      const delimiter = fn.parameters[PARAM_DELIMITER] ?? DEFAULT_LISTAGG_DELIMITER
      return ignoringNulls((acc, input) => `${acc as string}${delimiter}${input as string}`)
    }
    case 'bool_and':
      return ignoringNulls((acc, input) => (acc as boolean) && (input as boolean))
    case 'bool_or':
      return ignoringNulls((acc, input) => (acc as boolean) || (input as boolean))
    case 'rbm32':
      return ignoringNulls((acc, input) => orSerializedBitmap32(acc as Uint8Array, input as Uint8Array))
    case 'rbm64':
      return ignoringNulls((acc, input) => orSerializedBitmap64(acc as Uint8Array, input as Uint8Array))
  }
}

/** The function of one column of an aggregation table: PK columns keep the last value. */
export function aggFunctionOf(
  column: { readonly name: string; readonly aggFunction?: AggFunction },
  isPrimaryKey: boolean,
): AggFunction {
  if (isPrimaryKey) return { type: 'last_value', parameters: {} }
  return column.aggFunction ?? { type: 'last_value_ignore_nulls', parameters: {} }
}
