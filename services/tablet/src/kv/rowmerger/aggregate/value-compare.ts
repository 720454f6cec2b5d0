import { assert } from '@sluice/core/errors'
import { Decimal, type Timestamp, type Value } from '@sluice/core/row'
import type { DataType } from '@sluice/core/types'

/**
 * Comparison and arithmetic with Java's semantics for the aggregate functions: integers wrap like
 * Java's byte/short/int/long, FLOAT results are rounded to single precision, FLOAT/DOUBLE compare
 * like `Double.compare` (-0.0 < 0.0, NaN above everything), strings by code point (the order of
 * their UTF-8 bytes, as Fluss's BinaryString compares), DECIMAL by value.
 */

export type Compare = (a: Value, b: Value) => number

/** `Double.compare`: -0.0 sorts below 0.0 and NaN above +Infinity (NaN equals NaN). */
export function javaDoubleCompare(a: number, b: number): number {
  if (a < b) return -1
  if (a > b) return 1
  if (a === b) {
    if (a !== 0) return 0
    const negA = Object.is(a, -0)
    const negB = Object.is(b, -0)
    return negA === negB ? 0 : negA ? -1 : 1
  }
  const nanA = Number.isNaN(a)
  const nanB = Number.isNaN(b)
  return nanA === nanB ? 0 : nanA ? 1 : -1
}

/** Code point order (= UTF-8 byte order), unlike `<` on JS strings (UTF-16 code units). */
export function codePointCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate (0xD800-0xDFFF) starts a code point above 0xFFFF: it sorts after 0xE000-0xFFFF.
    const surrogateX = x >= 0xd800 && x <= 0xdfff
    const surrogateY = y >= 0xd800 && y <= 0xdfff
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

const POW10 = Array.from({ length: 77 }, (_, i) => 10n ** BigInt(i))

export function decimalCompare(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale)
  const x = a.unscaled * POW10[scale - a.scale]
  const y = b.unscaled * POW10[scale - b.scale]
  return x < y ? -1 : x > y ? 1 : 0
}

/** The comparator of `max`/`min` for a column type. */
export function comparatorFor(type: DataType): Compare {
  switch (type.type) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return (a, b) => (a as number) - (b as number)
    case 'FLOAT':
    case 'DOUBLE':
      return (a, b) => javaDoubleCompare(a as number, b as number)
    case 'BIGINT':
      return (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0)
    case 'DECIMAL':
      return (a, b) => decimalCompare(a as Decimal, b as Decimal)
    case 'CHAR':
    case 'STRING':
      return (a, b) => codePointCompare(a as string, b as string)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return (a, b) => Math.sign((a as Timestamp).compare(b as Timestamp))
    default:
      throw new Error(`no order is defined for ${type.type}`)
  }
}

/**
 * `a + b` or `a * b` at the column's precision and scale (Fluss's `DecimalUtils.add` /
 * `Decimal.fromBigDecimal`): a product is rounded HALF_UP to the scale; a result that needs more
 * digits than the precision is NULL.
 */
export function decimalArithmetic(op: 'sum' | 'product', precision: number, scale: number) {
  const bound = POW10[precision]
  return (a: Decimal, b: Decimal): Decimal | null => {
    assert(a.scale === scale && b.scale === scale, 'decimal aggregation inputs carry the column scale')
    let unscaled: bigint
    if (op === 'sum') {
      unscaled = a.unscaled + b.unscaled
    } else {
      unscaled = roundHalfUp(a.unscaled * b.unscaled, POW10[scale])
    }
    if (unscaled >= bound || unscaled <= -bound) return null
    return new Decimal(unscaled, scale)
  }
}

/** `value / divisor` rounded half away from zero (BigDecimal's HALF_UP). */
function roundHalfUp(value: bigint, divisor: bigint): bigint {
  if (divisor === 1n) return value
  const negative = value < 0n
  const abs = negative ? -value : value
  let q = abs / divisor
  if ((abs % divisor) * 2n >= divisor) q += 1n
  return negative ? -q : q
}

/** Java integer arithmetic for TINYINT/SMALLINT/INT/BIGINT and float/double arithmetic. */
export function numericArithmetic(op: 'sum' | 'product', type: DataType): (a: Value, b: Value) => Value {
  const sum = op === 'sum'
  switch (type.type) {
    case 'TINYINT':
      return (a, b) => ((sum ? (a as number) + (b as number) : (a as number) * (b as number)) << 24) >> 24
    case 'SMALLINT':
      return (a, b) => ((sum ? (a as number) + (b as number) : (a as number) * (b as number)) << 16) >> 16
    case 'INTEGER':
      return (a, b) => (sum ? ((a as number) + (b as number)) | 0 : Math.imul(a as number, b as number))
    case 'BIGINT':
      return (a, b) => BigInt.asIntN(64, sum ? (a as bigint) + (b as bigint) : (a as bigint) * (b as bigint))
    case 'FLOAT':
      return (a, b) => Math.fround(sum ? (a as number) + (b as number) : (a as number) * (b as number))
    case 'DOUBLE':
      return (a, b) => (sum ? (a as number) + (b as number) : (a as number) * (b as number))
    case 'DECIMAL': {
      const f = decimalArithmetic(op, type.precision, type.scale)
      return (a, b) => f(a as Decimal, b as Decimal)
    }
    default:
      throw new Error(`${op} is not defined for ${type.type}`)
  }
}
