import type { DeleteBehavior } from '@sluice/core/config'
import type { KvValue, SchemaContext } from '../kv-schemas.js'

/**
 * How a new row merges with the stored row of the same primary key (Fluss's `RowMerger`).
 *
 * The identity rule: `merge` returns the very `oldValue` object when nothing changes (first_row,
 * a lower version, a primary-key-only partial update); the KvTablet then emits no changelog.
 */
export interface RowMerger {
  /** The merged value; `oldValue` is null for a key that is not stored yet. */
  merge(oldValue: KvValue | null, newValue: KvValue): KvValue
  /** The value after deleting (null = remove the row). Only called when `deleteBehavior` is ALLOW. */
  delete(oldValue: KvValue): KvValue | null
  readonly deleteBehavior: DeleteBehavior
  /**
   * True only for the plain last-row merger writing whole rows: with the WAL changelog image the
   * KvTablet then skips reading the old value (the result is the new row either way).
   */
  readonly replacesWholeRow: boolean
  /**
   * The merger for one put: `targetColumns` (column positions of a partial update in the latest
   * schema) or null for whole rows. Refuses partial updates it cannot do, with Fluss's errors.
   */
  configureTargetColumns(targetColumns: readonly number[] | null, latest: SchemaContext): RowMerger
}
