import type { DeleteBehavior } from '@sluice/core/config'
import type { KvValue, SchemaContext } from '../kv-schemas.js'
import { PartialUpdater } from './partial-updater.js'
import type { RowMerger } from './row-merger.js'

/**
 * The default merge engine (last row wins), with partial updates (Fluss's `DefaultRowMerger`).
 * Deletes default to ALLOW.
 */
export class DefaultRowMerger implements RowMerger {
  readonly replacesWholeRow = true
  readonly #partialMergers = new Map<string, PartialUpdateRowMerger>()

  constructor(readonly deleteBehavior: DeleteBehavior = 'ALLOW') {}

  merge(_oldValue: KvValue | null, newValue: KvValue): KvValue {
    return newValue
  }

  delete(_oldValue: KvValue): KvValue | null {
    return null
  }

  configureTargetColumns(targetColumns: readonly number[] | null, latest: SchemaContext): RowMerger {
    if (targetColumns === null) return this
    const cacheKey = `${latest.schemaId}:${targetColumns.join(',')}`
    let merger = this.#partialMergers.get(cacheKey)
    if (merger === undefined || merger.updater.latest !== latest) {
      merger = new PartialUpdateRowMerger(new PartialUpdater(latest, targetColumns), this.deleteBehavior)
      if (this.#partialMergers.size >= MAX_CACHED_PARTIAL_MERGERS) this.#partialMergers.clear()
      this.#partialMergers.set(cacheKey, merger)
    }
    return merger
  }
}

/** Partial updaters kept per (schema, target columns); writers use few distinct column sets. */
const MAX_CACHED_PARTIAL_MERGERS = 16

class PartialUpdateRowMerger implements RowMerger {
  readonly replacesWholeRow = false

  constructor(
    readonly updater: PartialUpdater,
    readonly deleteBehavior: DeleteBehavior,
  ) {}

  merge(oldValue: KvValue | null, newValue: KvValue): KvValue {
    return this.updater.updateRow(oldValue, newValue)
  }

  delete(oldValue: KvValue): KvValue | null {
    return this.updater.deleteRow(oldValue)
  }

  configureTargetColumns(): RowMerger {
    throw new Error('a partial-update merger cannot be reconfigured')
  }
}
