import type { ArrayType, DataType, MapType, RowType } from '../types/data-type.js'
import { invalidValue } from './invalid-value.js'
import type { Value } from './value.js'

/** Checks one value; throws when it does not fit the type. */
export type ValueChecker = (value: Value) => void
/** Reports a bad value with the reason; never returns. */
export type Fail = (value: Value, reason: string) => never
/**
 * Checks of ARRAY, MAP and ROW values, recursively. A bad value deep inside a column is reported
 * with its path from the column:
 *
 * - ARRAY element i: `tags[3]`
 * - ROW field f: `point.x`
 * - MAP value of a string, number, bigint or boolean key k: `prices["EUR"]`, `counts[7]`;
 *   of any other key: `m{#2 value}`, where 2 is the entry's position in the Map's iteration order
 * - MAP key: `m{#2 key}`
 *
 * e.g. `Invalid value "x" for column 'tags[3].score' of type INT: expected an integer number in
 * the INT range`. Inner checkers throw a `NestedValueError` whose path grows on the way out; only
 * the column's checker turns it into the FlussError, so a valid value costs no path strings.
 */

/** Compiles the checker of non-null values of a flat (not nested) type. */
export type FlatCheckerFactory = (type: DataType, fail: Fail) => ValueChecker

class NestedValueError extends Error {
  /** The path from the enclosing value, e.g. `[3].score`. */
  path = ''

  constructor(
    readonly type: DataType,
    readonly value: Value,
    readonly reason: string,
  ) {
    super(reason)
  }
}

function within(e: unknown, segment: string): unknown {
  if (e instanceof NestedValueError) e.path = segment + e.path
  return e
}

/** The checker of non-null values of a nested column, throwing FlussError('INVALID_REQUEST'). */
export function nestedColumnChecker(
  type: ArrayType | MapType | RowType,
  column: string,
  flat: FlatCheckerFactory,
): ValueChecker {
  const check = nonNullChecker(type, flat)
  return v => {
    try {
      check(v)
    } catch (e) {
      if (e instanceof NestedValueError) throw invalidValue(column + e.path, e.type, e.value, e.reason)
      throw e
    }
  }
}

function nonNullChecker(type: DataType, flat: FlatCheckerFactory): ValueChecker {
  const fail: Fail = (value, reason) => {
    throw new NestedValueError(type, value, reason)
  }
  switch (type.type) {
    case 'ARRAY':
      return arrayChecker(type, fail, flat)
    case 'MAP':
      return mapChecker(type, fail, flat)
    case 'ROW':
      return rowChecker(type, fail, flat)
    default:
      return flat(type, fail)
  }
}

/** A checker of values that may be null (when the type is nullable). */
function valueChecker(type: DataType, flat: FlatCheckerFactory): ValueChecker {
  const check = nonNullChecker(type, flat)
  if (type.nullable) {
    return v => {
      if (v !== null) check(v)
    }
  }
  return v => {
    if (v === null) throw new NestedValueError(type, v, 'null is not allowed: the type is NOT NULL')
    check(v)
  }
}

function arrayChecker(type: ArrayType, fail: Fail, flat: FlatCheckerFactory): ValueChecker {
  const element = valueChecker(type.elementType, flat)
  return v => {
    if (!Array.isArray(v)) fail(v, 'expected an array')
    const values = v as Value[]
    for (let i = 0; i < values.length; i++) {
      try {
        element(values[i])
      } catch (e) {
        throw within(e, `[${i}]`)
      }
    }
  }
}

function mapChecker(type: MapType, fail: Fail, flat: FlatCheckerFactory): ValueChecker {
  const key = valueChecker(type.keyType, flat)
  const value = valueChecker(type.valueType, flat)
  return v => {
    if (!(v instanceof Map)) fail(v, 'expected a Map')
    let i = 0
    for (const [k, e] of v as Map<Value, Value>) {
      try {
        key(k)
      } catch (error) {
        throw within(error, `{#${i} key}`)
      }
      try {
        value(e)
      } catch (error) {
        throw within(error, valueSegment(k, i))
      }
      i++
    }
  }
}

function valueSegment(key: Value, i: number): string {
  if (typeof key === 'string') return `[${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}]`
  if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean') return `[${key}]`
  return `{#${i} value}`
}

function rowChecker(type: RowType, fail: Fail, flat: FlatCheckerFactory): ValueChecker {
  const names = type.fields.map(f => `.${f.name}`)
  const fields = type.fields.map(f => valueChecker(f.type, flat))
  return v => {
    if (!Array.isArray(v)) fail(v, 'expected an array of field values')
    const values = v as Value[]
    if (values.length !== fields.length)
      fail(v, `expected ${fields.length} field values, got ${values.length}`)
    for (let i = 0; i < fields.length; i++) {
      try {
        fields[i](values[i])
      } catch (e) {
        throw within(e, names[i])
      }
    }
  }
}
