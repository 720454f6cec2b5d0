import { type DataType, type DecimalType, isNested } from '../types/data-type.js'
import { type Fail, nestedColumnChecker, type ValueChecker } from './check-nested.js'
import { invalidValue } from './invalid-value.js'
import { Decimal, Timestamp, type Value } from './value.js'

export type { Fail, ValueChecker } from './check-nested.js'
export { invalidValue } from './invalid-value.js'

const MILLIS_PER_DAY = 86_400_000
const FLOAT_MAX = 3.4028234663852886e38
const checkerCache = new WeakMap<DataType, Map<string, ValueChecker>>()

/**
 * Checks that a JS value fits a Fluss type before it is encoded: the JS type matches the value model
 * (`row/value.ts`), integers are in range, DECIMAL fits its precision (after an exact rescale),
 * CHAR(n) has at most n characters, BINARY(n) exactly n bytes, strings are well-formed UTF-16 and
 * NOT NULL columns get no null. Checkers are compiled once per (type, column) and cached.
 */
export function checkValue(type: DataType, value: Value, column: string): void {
  let byColumn = checkerCache.get(type)
  if (byColumn === undefined) {
    byColumn = new Map()
    checkerCache.set(type, byColumn)
  }
  let checker = byColumn.get(column)
  if (checker === undefined) {
    checker = createValueChecker(type, column)
    byColumn.set(column, checker)
  }
  checker(value)
}

/** Compiles a checker for one column (null included: rejected when the type is NOT NULL). */
export function createValueChecker(type: DataType, column: string): ValueChecker {
  const check = createNonNullChecker(type, column)
  if (type.nullable) {
    return value => {
      if (value !== null) check(value)
    }
  }
  return value => {
    if (value === null) throw invalidValue(column, type, value, 'the column is NOT NULL')
    check(value)
  }
}

/**
 * Compiles a checker for non-null values of one column. Values of ARRAY, MAP and ROW columns are
 * checked recursively; an error names the path to the bad value, e.g. `tags[3].score`,
 * `prices["EUR"]` (see `check-nested.ts`).
 */
export function createNonNullChecker(type: DataType, column: string): ValueChecker {
  if (isNested(type)) return nestedColumnChecker(type, column, flatChecker)
  return flatChecker(type, (value, reason) => {
    throw invalidValue(column, type, value, reason)
  })
}

/** Compiles a checker for non-null values of a non-nested type; `fail` reports a bad value. */
function flatChecker(type: DataType, fail: Fail): ValueChecker {
  switch (type.type) {
    case 'BOOLEAN':
      return v => {
        if (typeof v !== 'boolean') fail(v, 'expected a boolean')
      }
    case 'TINYINT':
      return integerChecker(-128, 127, fail)
    case 'SMALLINT':
      return integerChecker(-32_768, 32_767, fail)
    case 'INTEGER':
    case 'DATE':
      return v => {
        if (typeof v !== 'number' || (v | 0) !== v) fail(v, 'expected an integer number in the INT range')
      }
    case 'TIME_WITHOUT_TIME_ZONE':
      return v => {
        if (typeof v !== 'number' || (v | 0) !== v || v < 0 || v >= MILLIS_PER_DAY) {
          fail(v, 'expected milliseconds of the day in [0, 86400000)')
        }
      }
    case 'BIGINT':
      return v => {
        if (typeof v !== 'bigint' || BigInt.asIntN(64, v) !== v)
          fail(v, 'expected a bigint in the BIGINT range')
      }
    case 'FLOAT':
      return v => {
        if (typeof v !== 'number') fail(v, 'expected a number')
        else if (Math.abs(v) > FLOAT_MAX && Number.isFinite(v)) fail(v, 'out of the FLOAT range')
      }
    case 'DOUBLE':
      return v => {
        if (typeof v !== 'number') fail(v, 'expected a number')
      }
    case 'STRING':
      return v => {
        if (typeof v !== 'string') fail(v, 'expected a string')
        else if (!isWellFormed(v)) fail(v, 'the string contains a lone surrogate')
      }
    case 'CHAR':
      return charChecker(type.length, fail)
    case 'BYTES':
      return v => {
        if (!(v instanceof Uint8Array)) fail(v, 'expected a Uint8Array')
      }
    case 'BINARY': {
      const length = type.length
      return v => {
        if (!(v instanceof Uint8Array)) fail(v, 'expected a Uint8Array')
        else if (v.length !== length) fail(v, `expected exactly ${length} bytes, got ${v.length}`)
      }
    }
    case 'DECIMAL':
      return v => {
        decimalUnscaled(type, v, fail)
      }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return v => {
        if (!(v instanceof Timestamp)) fail(v, 'expected a Timestamp')
        else if (!Number.isSafeInteger(v.millis)) fail(v, 'millis must be a safe integer')
        else if (!Number.isInteger(v.nanoOfMillis) || v.nanoOfMillis < 0 || v.nanoOfMillis > 999_999) {
          fail(v, 'nanoOfMillis must be an integer in [0, 999999]')
        }
      }
    default:
      throw new TypeError(`${type.type} is not a flat type`)
  }
}

function integerChecker(min: number, max: number, fail: Fail): ValueChecker {
  return v => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      fail(v, `expected an integer number in [${min}, ${max}]`)
    }
  }
}

function charChecker(length: number, fail: Fail): ValueChecker {
  return v => {
    if (typeof v !== 'string') fail(v, 'expected a string')
    else if (!isWellFormed(v)) fail(v, 'the string contains a lone surrogate')
    else if (v.length > length) {
      let chars = 0
      for (const _ of v) chars++
      if (chars > length) fail(v, `${chars} characters exceed the length ${length}`)
    }
  }
}

/**
 * The unscaled value of `value` at the scale of a DECIMAL column (for writers that store unscaled
 * integers, e.g. Arrow's Decimal128); throws like `checkValue` when it does not fit.
 */
export function unscaledForColumn(type: DecimalType, value: Value, column: string): bigint {
  return decimalUnscaled(type, value, (v, reason) => {
    throw invalidValue(column, type, v, reason)
  })
}

const POW10: bigint[] = Array.from({ length: 39 }, (_, i) => 10n ** BigInt(i))

/**
 * The unscaled value of `value` at the column's scale: exact rescaling only (more fraction digits
 * than the scale must be zeros), and the result must fit the precision.
 */
export function decimalUnscaled(type: DecimalType, value: Value, fail: Fail): bigint {
  if (!(value instanceof Decimal)) return fail(value, 'expected a Decimal')
  let unscaled = value.unscaled
  const diff = type.scale - value.scale
  if (diff > 0) unscaled *= POW10[diff] ?? 10n ** BigInt(diff)
  else if (diff < 0) {
    const factor = POW10[-diff] ?? 10n ** BigInt(-diff)
    if (unscaled % factor !== 0n) return fail(value, `more than ${type.scale} fraction digits`)
    unscaled /= factor
  }
  const bound = POW10[type.precision] ?? 10n ** BigInt(type.precision)
  if (unscaled >= bound || unscaled <= -bound) return fail(value, `exceeds precision ${type.precision}`)
  return unscaled
}

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed()
}
