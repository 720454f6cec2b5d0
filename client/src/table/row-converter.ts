import { FlussError } from '@sluice/core/errors'
import { parseDefaultValue, type Schema } from '@sluice/core/metadata'
import { createValueChecker, type Row, type Value, type ValueChecker } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import { type InputConverter, inputConverter } from './nested-values.js'

/**
 * A row as users pass it: values in column order, or an object keyed by column name (absent
 * columns are null, or the column's write default when it has one, as is `undefined` in an array).
 * Values follow the core value model (`@sluice/core/row` Value); as
 * conveniences, at any depth, BIGINT also takes a safe-integer number, TIMESTAMP/TIMESTAMP_LTZ a
 * Date, ARRAY a typed array, MAP with STRING keys a plain object, and ROW a plain object keyed by
 * field name (see `nested-values.ts`).
 */
export type RowInput = readonly unknown[] | Readonly<Record<string, unknown>>

/**
 * Turns user rows into validated rows of a table's row type. Every value is converted and checked
 * with the column's value checker before anything is buffered, so a bad row throws
 * INVALID_REQUEST naming the column and leaves nothing behind.
 */
export class RowConverter {
  readonly #names: readonly string[]
  readonly #index: ReadonlyMap<string, number>
  readonly #checkers: readonly ValueChecker[]
  readonly #converts: readonly InputConverter[]
  readonly #subject: string
  readonly #defaults: readonly Value[] | undefined
  readonly #hasDefault: readonly boolean[]

  /**
   * `subject` names the columns in messages (e.g. 'the table has', 'the lookup key has');
   * `defaults` holds each column's write default (undefined: none), see `schemaDefaults`.
   */
  constructor(
    readonly rowType: RowType,
    subject = 'the table has',
    defaults?: readonly (Value | undefined)[],
  ) {
    this.#subject = subject
    this.#defaults = defaults?.some(d => d !== undefined) ? defaults.map(d => d ?? null) : undefined
    this.#hasDefault = defaults?.map(d => d !== undefined) ?? []
    this.#names = rowType.fields.map(f => f.name)
    this.#index = new Map(this.#names.map((n, i) => [n, i]))
    this.#checkers = rowType.fields.map(f => createValueChecker(f.type, f.name))
    this.#converts = rowType.fields.map(f => inputConverter(f.type))
  }

  /** The validated row (a new array), or a thrown INVALID_REQUEST naming the offending column. */
  toRow(input: RowInput): Row {
    const row = Array.isArray(input)
      ? this.#fromArray(input)
      : this.#fromObject(input as Readonly<Record<string, unknown>>)
    const checkers = this.#checkers
    for (let i = 0; i < row.length; i++) checkers[i](row[i])
    return row
  }

  /**
   * Like `toRow`, but only the columns at `positions` are checked and kept; the others become
   * null whatever they hold (a delete needs only the key).
   */
  toKeyRow(input: RowInput, positions: readonly number[]): Row {
    const only = new Set(positions)
    const converted = Array.isArray(input)
      ? this.#fromArray(input, only)
      : this.#fromObject(input as Readonly<Record<string, unknown>>, only)
    const row = new Array<Value>(converted.length).fill(null)
    for (const p of positions) {
      this.#checkers[p](converted[p])
      row[p] = converted[p]
    }
    return row
  }

  /** The converted row; only the columns in `only` are converted when it is given (the others are null). */
  #fromArray(input: readonly unknown[], only?: ReadonlySet<number>): Row {
    const n = this.#names.length
    if (input.length !== n) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Row has ${input.length} values, ${this.#subject} ${n} columns (${this.#names.join(', ')})`,
      )
    }
    const row = new Array<Value>(n).fill(null)
    const defaults = only === undefined ? this.#defaults : undefined
    for (let i = 0; i < n; i++) {
      if (only !== undefined && !only.has(i)) continue
      const v = input[i]
      row[i] =
        v === undefined && defaults !== undefined && this.#hasDefault[i]
          ? defaults[i]
          : this.#converts[i](v, () => this.#names[i])
    }
    return row
  }

  #fromObject(input: Readonly<Record<string, unknown>>, only?: ReadonlySet<number>): Row {
    if (input === null || typeof input !== 'object') {
      throw new FlussError(
        'INVALID_REQUEST',
        `A row must be an array or an object, got ${input === null ? 'null' : typeof input}`,
      )
    }
    const row =
      this.#defaults === undefined || only !== undefined
        ? new Array<Value>(this.#names.length).fill(null)
        : [...this.#defaults]
    for (const key of Object.keys(input)) {
      const i = this.#index.get(key)
      if (i === undefined) {
        throw new FlussError(
          'INVALID_REQUEST',
          `Unknown column '${key}'; ${this.#subject} columns ${this.#names.join(', ')}`,
        )
      }
      if (only !== undefined && !only.has(i)) continue
      const v = input[key]
      if (v === undefined && only === undefined && this.#hasDefault[i]) continue
      row[i] = this.#converts[i](v, () => key)
    }
    return row
  }
}

/** Each column's write default as a value (undefined: the column has none). */
export function schemaDefaults(schema: Schema): (Value | undefined)[] {
  return schema.columns.map(c =>
    c.defaultValue === undefined ? undefined : parseDefaultValue(c.type, c.defaultValue, c.name),
  )
}
