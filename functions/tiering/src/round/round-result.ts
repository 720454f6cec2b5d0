import type { FlussError } from '@sluice/core/errors'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import type { BucketOffset } from './lake-item.js'

export interface RoundTotals {
  /** Log rows read (changelog rows for primary-key tables). */
  records: number
  /** Batch bytes read from tiered segments. */
  bytes: number
  dataFileCount: number
  deleteFileCount: number
}

/**
 * The outcome of one round: `committed` (a new lake snapshot), `idle` (nothing new was tiered),
 * `fenced` (another round holds the table or won the lake commit) or `failed` (the error is
 * recorded in the LAKE item). A round that is not `committed` leaves no new snapshot, except when
 * it failed or was fenced after its lake commit: the next round then adopts that snapshot's
 * offsets (the repair), so nothing is lost or tiered twice.
 */
export interface RoundResult extends Partial<RoundTotals> {
  readonly tableId: number
  readonly tablePath: TablePath
  readonly status: 'committed' | 'idle' | 'fenced' | 'failed'
  readonly epoch?: number
  readonly snapshotId?: bigint
  /** Per bucket, the next offset to tier after this round. */
  readonly tieredOffsets?: readonly BucketOffset[]
  /** The lake was ahead of the LAKE item (a crash between the commits) and its offsets were adopted. */
  readonly repaired?: boolean
  /** Offset ranges no tiered segment held (expired before they were uploaded). */
  readonly gaps?: readonly { partitionId?: number; bucket: number; from: number; to: number }[]
  readonly durationMs?: number
  readonly errorCode?: string
  readonly error?: string
}

const FENCED = new Set(['FENCED_TIERING_EPOCH_EXCEPTION', 'LAKE_COMMIT_CONFLICT'])

export function roundFailure(info: TableInfo, error: FlussError, epoch: number | undefined): RoundResult {
  return {
    tableId: info.tableId,
    tablePath: info.tablePath,
    status: FENCED.has(error.errorName) ? 'fenced' : 'failed',
    ...(epoch === undefined ? {} : { epoch }),
    errorCode: error.errorName,
    error: error.message,
  }
}
