import { FlussError } from '@sluice/core/errors'
import type { Value } from '@sluice/core/row'
import type { KvValue, SchemaContext } from '../kv-schemas.js'

/**
 * Checks the target columns of a partial update against the latest schema, with Fluss's messages:
 * every primary-key column must be a target, and every non-primary-key column must be nullable
 * (the columns a partial update leaves out may become NULL). `kind` selects the wording of the
 * default engine ("Partial Update") or the aggregation engine ("Partial aggregate").
 */
export function sanityCheckTargetColumns(
  latest: SchemaContext,
  targetColumns: readonly number[],
  kind: 'update' | 'aggregate',
): void {
  const fieldCount = latest.fieldCount
  for (const c of targetColumns) {
    if (!Number.isInteger(c) || c < 0 || c >= fieldCount) {
      throw new FlussError(
        'INVALID_TARGET_COLUMN',
        `The target write column index ${c} is out of range: the table has ${fieldCount} columns.`,
      )
    }
  }
  const targets = new Set(targetColumns)
  const pk = latest.primaryKeyIndexes
  if (!pk.every(i => targets.has(i))) {
    const message =
      kind === 'update'
        ? `The target write columns ${latest.columnNames(targetColumns)} must contain the primary key columns ${latest.columnNames(pk)}.`
        : `The target write columns must contain the primary key columns ${latest.columnNames(pk)}.`
    throw new FlussError('INVALID_TARGET_COLUMN', message)
  }
  const fields = latest.rowType.fields
  for (let i = 0; i < fieldCount; i++) {
    if (pk.includes(i) || fields[i].type.nullable) continue
    const message =
      kind === 'update'
        ? `Partial Update requires all columns except primary key to be nullable, but column ${fields[i].name} is NOT NULL.`
        : `Partial aggregate requires all columns except primary key to be nullable, but column ${fields[i].name} is NOT NULL.`
    throw new FlussError('INVALID_TARGET_COLUMN', message)
  }
}

/**
 * Partial update and partial delete of the default merge engine (Fluss's `PartialUpdater`). Results
 * are rows of the latest schema; rows of older schemas (fewer columns) read as NULL beyond their end.
 */
export class PartialUpdater {
  readonly #target: boolean[]
  readonly #primaryKey: boolean[]
  readonly #primaryKeyOnly: boolean

  constructor(
    readonly latest: SchemaContext,
    targetColumns: readonly number[],
  ) {
    sanityCheckTargetColumns(latest, targetColumns, 'update')
    this.#target = Array.from({ length: latest.fieldCount }, (_, i) => targetColumns.includes(i))
    this.#primaryKey = Array.from({ length: latest.fieldCount }, (_, i) =>
      latest.primaryKeyIndexes.includes(i),
    )
    this.#primaryKeyOnly = this.#target.every((t, i) => t === this.#primaryKey[i])
  }

  /** Target columns from `partial`, the others from `oldValue` (NULL when there is none). */
  updateRow(oldValue: KvValue | null, partial: KvValue): KvValue {
    if (this.#primaryKeyOnly && oldValue !== null) return oldValue
    const n = this.latest.fieldCount
    const row: Value[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const source = this.#target[i] ? partial.row : oldValue?.row
      row[i] = source !== undefined && i < source.length ? source[i] : null
    }
    return this.latest.encode(row)
  }

  /**
   * Deletes the row when every non-target column is already NULL; otherwise sets the target
   * columns (primary key excluded) to NULL.
   */
  deleteRow(value: KvValue): KvValue | null {
    const old = value.row
    let othersNull = true
    for (let i = 0; i < old.length; i++) {
      if (!this.#target[i] && old[i] !== null) {
        othersNull = false
        break
      }
    }
    if (othersNull) return null
    const n = this.latest.fieldCount
    const row: Value[] = new Array(n)
    for (let i = 0; i < n; i++) {
      row[i] = this.#target[i] && !this.#primaryKey[i] ? null : i < old.length ? old[i] : null
    }
    return this.latest.encode(row)
  }
}
