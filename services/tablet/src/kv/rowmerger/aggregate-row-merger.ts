import type { DeleteBehavior } from '@sluice/core/config'
import type { Value } from '@sluice/core/row'
import type { KvSchemaSource, KvValue, SchemaContext } from '../kv-schemas.js'
import { AggregationContextCache } from './aggregate/aggregation-context.js'
import { sanityCheckTargetColumns } from './partial-updater.js'
import type { RowMerger } from './row-merger.js'

/**
 * The aggregation merge engine (Fluss's `AggregateRowMerger`): each column of the stored row is
 * merged with the new row's column by its aggregate function (primary-key columns keep the last
 * value, other columns default to last_value_ignore_nulls). Columns are matched by column id, so
 * rows of older schemas merge into rows of the latest schema. A first write stores the new row as
 * is; every later write yields a new value, so it always emits -U/+U. Deletes default to IGNORE;
 * with ALLOW a whole-row delete removes the row.
 */
export class AggregateRowMerger implements RowMerger {
  readonly replacesWholeRow = false
  readonly deleteBehavior: DeleteBehavior
  readonly #contexts = new AggregationContextCache()
  readonly #partialMergers = new Map<string, PartialAggregateRowMerger>()
  #target: SchemaContext | null = null

  constructor(
    readonly schemas: KvSchemaSource,
    deleteBehavior: DeleteBehavior | undefined,
  ) {
    this.deleteBehavior = deleteBehavior ?? 'IGNORE'
  }

  merge(oldValue: KvValue | null, newValue: KvValue): KvValue {
    if (oldValue === null) return newValue
    const target = this.#target
    if (target === null) throw new Error('the aggregate merger is used before configureTargetColumns')
    const aggregators = this.#contexts.get(target).aggregators
    const oldAt = this.#contexts.mapping(this.schemas.context(oldValue.schemaId), target)
    const newAt = this.#contexts.mapping(this.schemas.context(newValue.schemaId), target)
    const row: Value[] = new Array(target.fieldCount)
    for (let i = 0; i < row.length; i++) {
      const acc = oldAt[i] < 0 ? null : oldValue.row[oldAt[i]]
      const input = newAt[i] < 0 ? null : newValue.row[newAt[i]]
      row[i] = aggregators[i](acc, input)
    }
    return target.encode(row)
  }

  delete(_oldValue: KvValue): KvValue | null {
    return null
  }

  configureTargetColumns(targetColumns: readonly number[] | null, latest: SchemaContext): RowMerger {
    if (targetColumns === null) {
      this.#target = latest
      return this
    }
    const cacheKey = `${latest.schemaId}:${targetColumns.join(',')}`
    let merger = this.#partialMergers.get(cacheKey)
    if (merger === undefined || merger.target !== latest) {
      sanityCheckTargetColumns(latest, targetColumns, 'aggregate')
      const targetIds = new Set(targetColumns.map(i => latest.columnIds[i]))
      merger = new PartialAggregateRowMerger(
        this.schemas,
        this.#contexts,
        latest,
        targetIds,
        this.deleteBehavior,
      )
      if (this.#partialMergers.size >= MAX_CACHED_PARTIAL_MERGERS) this.#partialMergers.clear()
      this.#partialMergers.set(cacheKey, merger)
    }
    return merger
  }
}

const MAX_CACHED_PARTIAL_MERGERS = 16

/**
 * Partial aggregation: only the target columns are aggregated, the others keep their stored value
 * (or NULL when the stored row's schema lacks them). A partial delete removes the row when every
 * non-target column is NULL, otherwise sets the non-key target columns to NULL.
 */
class PartialAggregateRowMerger implements RowMerger {
  readonly replacesWholeRow = false

  constructor(
    readonly schemas: KvSchemaSource,
    readonly contexts: AggregationContextCache,
    readonly target: SchemaContext,
    readonly targetColumnIds: ReadonlySet<number>,
    readonly deleteBehavior: DeleteBehavior,
  ) {}

  merge(oldValue: KvValue | null, newValue: KvValue): KvValue {
    if (oldValue === null) return newValue
    const target = this.target
    const aggregators = this.contexts.get(target).aggregators
    const oldAt = this.contexts.mapping(this.schemas.context(oldValue.schemaId), target)
    const newAt = this.contexts.mapping(this.schemas.context(newValue.schemaId), target)
    const row: Value[] = new Array(target.fieldCount)
    for (let i = 0; i < row.length; i++) {
      const acc = oldAt[i] < 0 ? null : oldValue.row[oldAt[i]]
      if (this.targetColumnIds.has(target.columnIds[i])) {
        row[i] = aggregators[i](acc, newAt[i] < 0 ? null : newValue.row[newAt[i]])
      } else {
        row[i] = acc
      }
    }
    return target.encode(row)
  }

  delete(oldValue: KvValue): KvValue | null {
    const source = this.schemas.context(oldValue.schemaId)
    const old = oldValue.row
    let othersNull = true
    for (let i = 0; i < old.length; i++) {
      if (!this.targetColumnIds.has(source.columnIds[i]) && old[i] !== null) {
        othersNull = false
        break
      }
    }
    if (othersNull) return null
    const target = this.target
    const primaryKey = this.contexts.get(target).primaryKey
    const oldAt = this.contexts.mapping(source, target)
    const row: Value[] = new Array(target.fieldCount)
    for (let i = 0; i < row.length; i++) {
      const cleared = this.targetColumnIds.has(target.columnIds[i]) && !primaryKey[i]
      row[i] = cleared || oldAt[i] < 0 ? null : old[oldAt[i]]
    }
    return target.encode(row)
  }

  configureTargetColumns(): RowMerger {
    throw new Error('a partial-aggregate merger cannot be reconfigured')
  }
}
