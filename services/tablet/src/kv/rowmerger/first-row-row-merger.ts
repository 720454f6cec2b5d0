import type { DeleteBehavior } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { KvValue, SchemaContext } from '../kv-schemas.js'
import type { RowMerger } from './row-merger.js'

/**
 * The first_row merge engine (Fluss's `FirstRowRowMerger`): the first row of a key is kept, later
 * upserts change nothing. Deletes default to IGNORE; ALLOW is refused, DISABLE rejects deletes.
 */
export class FirstRowRowMerger implements RowMerger {
  readonly replacesWholeRow = false
  readonly deleteBehavior: DeleteBehavior

  constructor(deleteBehavior: DeleteBehavior | undefined) {
    if (deleteBehavior === 'ALLOW') {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        'DELETE is not supported for the first_row merge engine.',
      )
    }
    this.deleteBehavior = deleteBehavior ?? 'IGNORE'
  }

  merge(oldValue: KvValue | null, newValue: KvValue): KvValue {
    return oldValue ?? newValue
  }

  delete(): KvValue | null {
    throw new FlussError('UNKNOWN_SERVER_ERROR', 'DELETE is not supported for the first_row merge engine.')
  }

  configureTargetColumns(targetColumns: readonly number[] | null, _latest: SchemaContext): RowMerger {
    if (targetColumns === null) return this
    throw new FlussError(
      'UNKNOWN_SERVER_ERROR',
      'Partial update is not supported for the first_row merge engine.',
    )
  }
}
