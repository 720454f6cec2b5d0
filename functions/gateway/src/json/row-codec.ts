import type { Row, RowType } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { invalidArgument } from '../errors/gateway-error.js'
import { LongNumber } from './long-number.js'
import { type JsonRowReaderOptions, type RowColumns, rowColumns } from './row-columns.js'
import { type ValueJsonWriter, valueJsonWriter } from './value-to-json.js'

export type { JsonRowReaderOptions } from './row-columns.js'

/**
 * Reads JSON row objects (`{"id": 1, "name": "a"}`) into full-width rows of a table's row type:
 * columns left out are null (or their write default). Each value is converted by the documented mapping and then checked
 * with the column's value checker, so a row that passes can be encoded as it is.
 */
export class JsonRowReader {
  readonly columns: RowColumns

  constructor(rowType: RowType, options: JsonRowReaderOptions = {}) {
    this.columns = rowColumns(rowType, options)
  }

  /** Converts one row object; `path` names it in errors (`rows[3]`). */
  read(json: unknown, path: string): Row {
    if (typeof json !== 'object' || json === null || Array.isArray(json) || json instanceof LongNumber) {
      throw invalidArgument(`${path}: expected a JSON object of column names to values`)
    }
    const { index, allowed, readers, empty } = this.columns
    const obj = json as Record<string, unknown>
    const row: Row = empty.slice()
    for (const name of Object.keys(obj)) {
      const i = index.get(name)
      if (i === undefined) throw invalidArgument(`${path}.${name}: no such column in the table`)
      if (!allowed[i]) throw invalidArgument(`${path}.${name}: this column cannot be given here`)
      row[i] = readers[i](obj[name], `${path}.${name}`)
    }
    this.check(row, path)
    return row
  }

  /**
   * Checks a full-width row: every required (key) column has a value, and every value passes its
   * column's value checker; errors name the path.
   */
  check(row: Row, path: string): void {
    const { required, allowed, checkers, names } = this.columns
    for (const i of required) {
      if (row[i] === null)
        throw invalidArgument(`${path}.${names[i]}: a value is required for this key column`)
    }
    for (let i = 0; i < row.length; i++) {
      if (!allowed[i] && row[i] === null) continue
      try {
        checkers[i](row[i])
      } catch (e) {
        if (e instanceof FlussError) throw invalidArgument(`${path}.${names[i]}: ${e.message}`)
        throw e
      }
    }
  }

  /** Whether a row object may name `column`. */
  allows(column: string): boolean {
    const i = this.columns.index.get(column)
    return i !== undefined && this.columns.allowed[i]
  }

  /** Converts every row first; nothing is returned unless all rows are valid. */
  readAll(rows: readonly unknown[], basePath: string): Row[] {
    return rows.map((r, i) => this.read(r, `${basePath}[${i}]`))
  }
}

/** Writes rows (or projected rows) as JSON objects keyed by column name. */
export class JsonRowWriter {
  readonly #names: readonly string[]
  readonly #writers: readonly ValueJsonWriter[]

  constructor(rowType: RowType) {
    this.#names = rowType.fields.map(f => f.name)
    this.#writers = rowType.fields.map(f => valueJsonWriter(f.type))
  }

  write(row: Row): Record<string, unknown> {
    return Object.fromEntries(this.#names.map((name, i) => [name, this.#writers[i](row[i])]))
  }
}
