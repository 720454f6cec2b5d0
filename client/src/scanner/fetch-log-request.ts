import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { FetchLogRequestInit } from '@sluice/core/rpc'
import { listBucketOffsets, type OffsetSpec } from '../admin/list-offsets.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { FetchContext, Subscription } from './log-fetcher.js'

/** Offset meaning "start at the earliest offset", resolved with LIST_OFFSETS before fetching. */
export const EARLIEST_OFFSET = -2

/** The offset of a subscription whose start (latest, or by timestamp) is still being looked up. */
export const UNRESOLVED_OFFSET = -1

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
        ...(projectedFields === undefined ? {} : { projectionSchemaId: info.schemaId }),
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

/** A bucket waiting for its start offset, and how to look it up. */
export interface PendingStart {
  readonly bucket: TableBucket
  readonly spec: OffsetSpec
}

/** What looking up start offsets found. */
export interface StartOffsets {
  /** Start offset by `tableBucketKey`. */
  readonly offsets: Map<string, number>
  /** Partitions that no longer exist (PARTITION_NOT_EXISTS): their buckets have no start offset. */
  readonly gonePartitions: number[]
  /** The first other failure, if any; the buckets it concerns stay pending. */
  readonly error: FlussError | undefined
}

/**
 * Looks up start offsets with LIST_OFFSETS, one lookup per partition and offset spec (each sends
 * one request per leader). A partition that was dropped is reported, not failed, so that the other
 * partitions still start.
 */
export async function startOffsets(
  metadata: MetadataUpdater,
  info: TableInfo,
  pending: readonly PendingStart[],
  timeoutMs: number,
): Promise<StartOffsets> {
  const groups = new Map<string, { partitionId: number | undefined; spec: OffsetSpec; buckets: number[] }>()
  for (const { bucket, spec } of pending) {
    const key = `${bucket.partitionId ?? '-'}:${JSON.stringify(spec)}`
    const group = groups.get(key)
    if (group === undefined)
      groups.set(key, { partitionId: bucket.partitionId, spec, buckets: [bucket.bucket] })
    else group.buckets.push(bucket.bucket)
  }
  const offsets = new Map<string, number>()
  const gonePartitions: number[] = []
  let error: FlussError | undefined
  await Promise.all(
    [...groups.values()].map(async ({ partitionId, spec, buckets }) => {
      const target = {
        tablePath: info.tablePath,
        tableId: info.tableId,
        ...(partitionId === undefined ? {} : { partitionId }),
      }
      try {
        const found = await listBucketOffsets(metadata, target, buckets, spec, timeoutMs)
        for (const [bucket, offset] of found)
          offsets.set(tableBucketKey(tableBucket(info.tableId, bucket, partitionId)), offset)
      } catch (e) {
        const failure = toFlussError(e)
        if (partitionId !== undefined && failure.is('PARTITION_NOT_EXISTS')) gonePartitions.push(partitionId)
        else error ??= failure
      }
    }),
  )
  return { offsets, gonePartitions, error }
}
