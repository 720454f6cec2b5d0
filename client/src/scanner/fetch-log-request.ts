import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { FetchLogRequestInit } from '@sluice/core/rpc'
import { listBucketOffsets } from '../admin/list-offsets.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { FetchContext, Subscription } from './log-fetcher.js'

/** Offset meaning "start at the earliest offset", resolved with LIST_OFFSETS before fetching. */
export const EARLIEST_OFFSET = -2

/** Per-bucket fetch errors that mean the leader moved: refresh the metadata and fetch again. */
export const REFRESH_ERRORS: ReadonlySet<string> = new Set([
  'NOT_LEADER_OR_FOLLOWER',
  'LOG_STORAGE_EXCEPTION',
  'KV_STORAGE_EXCEPTION',
  'STORAGE_EXCEPTION',
  'FENCED_LEADER_EPOCH_EXCEPTION',
  'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION',
  'LEADER_NOT_AVAILABLE_EXCEPTION',
  'UNKNOWN_SERVER_ERROR',
])

/** One FETCH_LOG for the buckets one leader serves, with the scan's projection pushed down. */
export function fetchLogRequest(ctx: FetchContext, subs: readonly Subscription[]): FetchLogRequestInit {
  const { info, options, projectedFields } = ctx
  return {
    followerServerId: -1,
    maxBytes: options.fetchMaxBytes,
    maxWaitMs: options.fetchWaitMaxMs,
    minBytes: options.fetchMinBytes,
    tablesReq: [
      {
        tableId: info.tableId,
        projectionPushdownEnabled: projectedFields !== undefined,
        projectedFields: projectedFields === undefined ? [] : [...projectedFields],
        bucketsReq: subs.map(s => ({
          partitionId: s.bucket.partitionId ?? null,
          bucketId: s.bucket.bucket,
          fetchOffset: s.offset,
          maxFetchBytes: options.fetchMaxBytesForBucket,
        })),
      },
    ],
  }
}

/** The error a poll surfaces for a bucket's fetch error. */
export function fetchError(error: FlussError, fetchOffset: number): FlussError {
  if (error.is('LOG_OFFSET_OUT_OF_RANGE_EXCEPTION')) {
    return new FlussError(error.spec, `The fetching offset ${fetchOffset} is out of range: ${error.message}`)
  }
  return error
}

/**
 * The error for a fetch the server answered with the location of remote (tiered) log segments
 * instead of records. This client does not read remote storage itself: Sluice servers send tiered
 * records inline to clients that name themselves 'sluice' in ApiVersions, so this means the server
 * did not (an older server, or a Fluss server). LOG_STORAGE_EXCEPTION, not retriable.
 */
export function remoteOnlyError(fetchOffset: number, bucketId: number, remoteDir: string): FlussError {
  return new FlussError(
    'LOG_STORAGE_EXCEPTION',
    `Offset ${fetchOffset} of bucket ${bucketId} is only in remote (tiered) log storage (${remoteDir}) and the server sent its location instead of the records; this client reads tiered log data only when the server sends it inline`,
  )
}

/** The earliest offset of each bucket (keyed by `tableBucketKey`), one LIST_OFFSETS per partition and leader. */
export async function earliestOffsets(
  metadata: MetadataUpdater,
  info: TableInfo,
  buckets: readonly TableBucket[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const byPartition = new Map<number | undefined, number[]>()
  for (const b of buckets)
    byPartition.set(b.partitionId, [...(byPartition.get(b.partitionId) ?? []), b.bucket])
  const result = new Map<string, number>()
  await Promise.all(
    [...byPartition].map(async ([partitionId, ids]) => {
      const target = {
        tablePath: info.tablePath,
        tableId: info.tableId,
        ...(partitionId === undefined ? {} : { partitionId }),
      }
      const offsets = await listBucketOffsets(metadata, target, ids, 'earliest', timeoutMs)
      for (const [bucket, offset] of offsets)
        result.set(tableBucketKey(tableBucket(info.tableId, bucket, partitionId)), offset)
    }),
  )
  return result
}
