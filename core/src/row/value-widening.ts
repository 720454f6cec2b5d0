import { FlussError } from '../errors/index.js'
import { type DataType, typeToString } from '../types/data-type.js'
import type { Decimal, Value } from './value.js'

/** Turns a value read with one type of a column into a value of another type of that column. */
export type ValueConverter = (value: Value) => Value

const INTEGER_ROOTS = new Set(['TINYINT', 'SMALLINT', 'INTEGER'])
const INTEGER_RANGE: Record<string, [number, number]> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INTEGER: [-2147483648, 2147483647],
}

/**
 * The conversion of stored values of type `from` into values of the widened type `to` (see
 * `types/type-widening.ts`), or undefined when the JS value stays as it is. Only integers that
 * become BIGINT change their JS type (number → bigint): FLOAT values are exact DOUBLEs, a DECIMAL
 * keeps its unscaled value and scale, and CHAR and STRING are both strings.
 */
export function valueWidener(from: DataType, to: DataType): ValueConverter | undefined {
  if (to.type === 'BIGINT' && INTEGER_ROOTS.has(from.type)) {
    return v => (v === null ? null : BigInt(v as number))
  }
  return undefined
}

/**
 * The way back, for a reader whose schema is older than a row's: a value of the widened type `from`
 * read as the older, narrower type `to`. Values that fit are returned in `to`'s JS form; a value
 * that does not (it was written after the widening) is STALE_SCHEMA, naming the column.
 */
export function valueNarrower(from: DataType, to: DataType, column: string): ValueConverter {
  const stale = (v: Value) =>
    new FlussError(
      'STALE_SCHEMA',
      `Column '${column}' is ${typeToString(from)} since a later schema, and ${String(v)} does not fit the ${typeToString(to)} of this reader's schema: read with the table's current schema.`,
    )
  const range = INTEGER_RANGE[to.type]
  if (range !== undefined) {
    return v => {
      if (v === null) return null
      const n = Number(v as number | bigint)
      if (!Number.isInteger(n) || n < range[0] || n > range[1]) throw stale(v)
      return n
    }
  }
  switch (to.type) {
    case 'FLOAT':
      return v => {
        if (v === null || Math.fround(v as number) === v || Number.isNaN(v)) return v
        throw stale(v)
      }
    case 'DECIMAL':
      return v => {
        if (v === null || (v as Decimal).digits() <= to.precision) return v
        throw stale(v)
      }
    case 'CHAR':
      return v => {
        if (v === null || [...(v as string)].length <= to.length) return v
        throw stale(v)
      }
    default:
      return v => v
  }
}
