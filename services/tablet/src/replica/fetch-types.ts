import type { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { PbRemoteLogFetchInfoInit } from '@sluice/core/rpc'

/** The request-wide part of a FETCH_LOG (Fluss's `FetchParams`). */
export interface FetchParams {
  /** -1 for clients, the follower's server id for replication. */
  readonly replicaId: number
  /** Total bytes over all buckets (the first batch found is returned whole regardless). */
  readonly maxBytes: number
  /** Long poll: wait until this many bytes are available... */
  readonly minBytes: number
  /** ...or this long (0 = answer at once). */
  readonly maxWaitMs: number
  /**
   * True when the client reads remote (tiered) data through the server (Sluice's SDK): offsets
   * below the local log start come back as batches instead of remote-log fetch info.
   */
  readonly remoteRecords?: boolean
}

/** One bucket of a FETCH_LOG. */
export interface FetchReqInfo {
  readonly tableBucket: TableBucket
  readonly fetchOffset: number
  readonly maxBytes: number
  /** Column indexes to return (ARROW tables), or null for whole batches. */
  readonly projectedFields: readonly number[] | null
  /** The schema id `projectedFields` are positions of; null: the table's latest schema. */
  readonly projectionSchemaId?: number | null
}

export interface FetchLogResultForBucket {
  readonly tableBucket: TableBucket
  readonly error?: FlussError
  readonly highWatermark?: number
  readonly logStartOffset?: number
  readonly records?: Buffer
  /** Where to download the remote segments from (then `records` is absent). */
  readonly remoteLogFetchInfo?: PbRemoteLogFetchInfoInit
}

/** Bytes of records over all results. */
export function fetchedBytes(results: readonly FetchLogResultForBucket[]): number {
  let total = 0
  for (const r of results) total += r.records?.length ?? 0
  return total
}
