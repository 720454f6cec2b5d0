import type { RowType, Value } from '@sluice/core'
import { createValueChecker, type ValueChecker } from '@sluice/core/row'
import { type JsonValueReader, jsonValueReader } from './json-to-value.js'

export interface JsonRowReaderOptions {
  /** Columns a row object may name (default: all); naming any other column is an error. */
  readonly allowed?: readonly string[]
  /** Columns a row object must name with a non-null value (keys). */
  readonly required?: readonly string[]
  /** Per column, the value of a column a row object leaves out (full width; default all null). */
  readonly defaults?: readonly Value[]
}

/** What reading JSON rows of one row type needs, compiled once: positions, value readers, checkers. */
export interface RowColumns {
  readonly rowType: RowType
  readonly names: readonly string[]
  readonly index: ReadonlyMap<string, number>
  /** By position: whether a row object may name the column. */
  readonly allowed: readonly boolean[]
  /** Positions of the columns that need a non-null value. */
  readonly required: readonly number[]
  readonly readers: readonly JsonValueReader[]
  readonly checkers: readonly ValueChecker[]
  /** The row a row object starts from: each column's write default, or null. */
  readonly empty: readonly Value[]
}

export function rowColumns(rowType: RowType, options: JsonRowReaderOptions = {}): RowColumns {
  const names = rowType.fields.map(f => f.name)
  const index = new Map(names.map((n, i) => [n, i]))
  const allowed = new Set(options.allowed ?? names)
  return {
    rowType,
    names,
    index,
    allowed: names.map(n => allowed.has(n)),
    required: (options.required ?? []).map(n => index.get(n) as number),
    readers: rowType.fields.map(f => jsonValueReader(f.type)),
    checkers: rowType.fields.map(f => createValueChecker(f.type, f.name)),
    empty: options.defaults ?? names.map(() => null),
  }
}

/**
 * Whether a full-width row passes: every required column has a value, and every value its
 * column's checker (null in a column the request may not name is skipped). For callers that word
 * the error themselves.
 */
export function rowPasses(columns: RowColumns, row: readonly unknown[]): boolean {
  const { required, allowed, checkers } = columns
  for (let r = 0; r < required.length; r++) if (row[required[r]] === null) return false
  try {
    for (let i = 0; i < row.length; i++) {
      if (!allowed[i] && row[i] === null) continue
      checkers[i](row[i] as never)
    }
  } catch {
    return false
  }
  return true
}
