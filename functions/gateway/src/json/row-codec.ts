import type { Row, RowType, Value } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { createValueChecker, type ValueChecker } from '@sluice/core/row'
import { invalidArgument } from '../errors/gateway-error.js'
import { type JsonValueReader, jsonValueReader } from './json-to-value.js'
import { LongNumber } from './long-number.js'
import { type ValueJsonWriter, valueJsonWriter } from './value-to-json.js'

export interface JsonRowReaderOptions {
  /** Columns a row object may name (default: all); naming any other column is an error. */
  readonly allowed?: readonly string[]
  /** Columns a row object must name with a non-null value (keys). */
  readonly required?: readonly string[]
}

/**
 * Reads JSON row objects (`{"id": 1, "name": "a"}`) into full-width rows of a table's row type:
 * columns left out are null. Each value is converted by the documented mapping and then checked
 * with the column's value checker, so a row that passes can be encoded as it is.
 */
export class JsonRowReader {
  readonly #rowType: RowType
  readonly #index: ReadonlyMap<string, number>
  readonly #allowed: ReadonlySet<string>
  readonly #required: readonly string[]
  readonly #readers: readonly JsonValueReader[]
  readonly #checkers: readonly ValueChecker[]

  constructor(rowType: RowType, options: JsonRowReaderOptions = {}) {
    const names = rowType.fields.map(f => f.name)
    this.#rowType = rowType
    this.#index = new Map(names.map((n, i) => [n, i]))
    this.#allowed = new Set(options.allowed ?? names)
    this.#required = options.required ?? []
    this.#readers = rowType.fields.map(f => jsonValueReader(f.type))
    this.#checkers = rowType.fields.map(f => createValueChecker(f.type, f.name))
  }

  /** Converts one row object; `path` names it in errors (`rows[3]`). */
  read(json: unknown, path: string): Row {
    if (typeof json !== 'object' || json === null || Array.isArray(json) || json instanceof LongNumber) {
      throw invalidArgument(`${path}: expected a JSON object of column names to values`)
    }
    const obj = json as Record<string, unknown>
    const row: Row = new Array<Value>(this.#rowType.fields.length).fill(null)
    for (const name of Object.keys(obj)) {
      const i = this.#index.get(name)
      if (i === undefined) throw invalidArgument(`${path}.${name}: no such column in the table`)
      if (!this.#allowed.has(name)) throw invalidArgument(`${path}.${name}: this column cannot be given here`)
      const colPath = `${path}.${name}`
      row[i] = this.#readers[i](obj[name], colPath)
    }
    this.check(row, path)
    return row
  }

  /**
   * Checks a full-width row: every required (key) column has a value, and every value passes its
   * column's value checker; errors name the path.
   */
  check(row: Row, path: string): void {
    for (const name of this.#required) {
      const i = this.#index.get(name) as number
      if (row[i] === null) throw invalidArgument(`${path}.${name}: a value is required for this key column`)
    }
    for (let i = 0; i < row.length; i++) {
      if (!this.#allowed.has(this.#rowType.fields[i].name) && row[i] === null) continue
      try {
        this.#checkers[i](row[i])
      } catch (e) {
        if (e instanceof FlussError)
          throw invalidArgument(`${path}.${this.#rowType.fields[i].name}: ${e.message}`)
        throw e
      }
    }
  }

  /** Whether a row object may name `column`. */
  allows(column: string): boolean {
    return this.#allowed.has(column)
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
