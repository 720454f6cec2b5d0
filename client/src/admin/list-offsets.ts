import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, type TablePath, tableBucket, tablePathToString } from '@sluice/core/metadata'
import { exponentialBackoffMs, sleep } from '@sluice/core/util'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'

/**
 * Which offset to look up (Fluss's `OffsetSpec`): the log start, the high watermark, or the first
 * offset whose batch was committed at or after a timestamp (ms).
 */
export type OffsetSpec = 'earliest' | 'latest' | { readonly timestamp: number }

const OFFSET_TYPE = { earliest: 0, latest: 1, timestamp: 2 } as const

/** Checks an offset spec given by a caller; INVALID_REQUEST when it is none of the three forms. */
export function checkOffsetSpec(spec: OffsetSpec): OffsetSpec {
  offsetRequest(spec)
  return spec
}

/** The table or partition whose bucket offsets are listed. */
export interface OffsetsTarget {
  readonly tablePath: TablePath
  readonly tableId: number
  readonly partitionId?: number
}

function offsetRequest(spec: OffsetSpec): { offsetType: number; startTimestamp: number | null } {
  if (spec === 'earliest' || spec === 'latest') return { offsetType: OFFSET_TYPE[spec], startTimestamp: null }
  if (typeof spec !== 'object' || spec === null || !Number.isSafeInteger(spec.timestamp)) {
    throw new FlussError(
      'INVALID_REQUEST',
      `Invalid offset spec ${JSON.stringify(spec)}: expected 'earliest', 'latest' or { timestamp }`,
    )
  }
  return { offsetType: OFFSET_TYPE.timestamp, startTimestamp: spec.timestamp }
}

/**
 * Looks up one offset per bucket with LIST_OFFSETS sent to each bucket's leader (one request per
 * leader). Buckets answered with a stale-metadata error are retried after a metadata refresh until
 * the request timeout; any other per-bucket error fails the call.
 */
export async function listBucketOffsets(
  metadata: MetadataUpdater,
  target: OffsetsTarget,
  buckets: readonly number[],
  spec: OffsetSpec,
  timeoutMs: number,
): Promise<Map<number, number>> {
  const { offsetType, startTimestamp } = offsetRequest(spec)
  for (const b of buckets) {
    if (!Number.isInteger(b) || b < 0) throw new FlussError('INVALID_REQUEST', `Invalid bucket id ${b}`)
  }
  const deadline = Date.now() + timeoutMs
  const offsets = new Map<number, number>()
  let pending = [...new Set(buckets)]
  for (let attempt = 1; pending.length > 0; attempt++) {
    const { byLeader, unknown } = await leadersOf(metadata, target, pending)
    const failed: number[] = [...unknown]
    let lastError: FlussError | undefined = unknown.length === 0 ? undefined : noLeader(target, unknown[0])
    await Promise.all(
      [...byLeader].map(async ([node, ids]) => {
        const request = {
          followerServerId: -1,
          offsetType,
          tableId: target.tableId,
          partitionId: target.partitionId ?? null,
          bucketId: ids,
          startTimestamp,
        }
        try {
          const response = await metadata.request(node, 'LIST_OFFSETS', request)
          for (const r of response.bucketsResp) {
            if (r.errorCode !== null && r.errorCode !== 0) {
              const error = FlussError.fromCode(r.errorCode, r.errorMessage)
              if (!error.staleMetadata) throw error
              failed.push(r.bucketId)
              lastError = error
            } else {
              offsets.set(r.bucketId, r.offset ?? -1)
            }
          }
        } catch (e) {
          const error = toFlussError(e)
          if (!error.staleMetadata) throw error
          failed.push(...ids)
          lastError = error
        }
      }),
    )
    pending = failed
    if (pending.length === 0) break
    metadata.invalidate(target.tableId, target.partitionId)
    const delayMs = exponentialBackoffMs(attempt, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
    if (Date.now() + delayMs > deadline) throw lastError as FlussError
    await sleep(delayMs)
  }
  return offsets
}

/** Groups buckets by leader, refreshing the metadata once when some leader is unknown. */
async function leadersOf(
  metadata: MetadataUpdater,
  target: OffsetsTarget,
  buckets: readonly number[],
): Promise<{ byLeader: Map<ServerNode, number[]>; unknown: number[] }> {
  const bucketOf = (b: number): TableBucket => tableBucket(target.tableId, b, target.partitionId)
  let cluster = metadata.cluster
  if (buckets.some(b => cluster.leaderFor(bucketOf(b)) === undefined)) {
    cluster = await metadata.update(
      target.partitionId === undefined
        ? { tables: [target.tablePath] }
        : { tables: [target.tablePath], partitionIds: [target.partitionId] },
    )
  }
  const byLeader = new Map<ServerNode, number[]>()
  const unknown: number[] = []
  for (const b of buckets) {
    const leader = cluster.leaderFor(bucketOf(b))
    if (leader === undefined) {
      unknown.push(b)
      continue
    }
    const list = byLeader.get(leader)
    if (list === undefined) byLeader.set(leader, [b])
    else list.push(b)
  }
  return { byLeader, unknown }
}

function noLeader(target: OffsetsTarget, bucket: number): FlussError {
  const where = target.partitionId === undefined ? '' : ` partition ${target.partitionId}`
  return new FlussError(
    'LEADER_NOT_AVAILABLE_EXCEPTION',
    `No leader is known for bucket ${bucket} of ${tablePathToString(target.tablePath)}${where}`,
  )
}
