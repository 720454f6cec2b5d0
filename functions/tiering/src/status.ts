import type { Admin } from '@sluice/client'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { GetLakeSnapshotResponseInit } from '@sluice/core/rpc'
import { type BucketOffset, type LakeItem, readLakeItem } from './round/lake-item.js'

/**
 * Tiering status of a table, from its LAKE item: per bucket the tiered offset (the first offset
 * the lake does not hold), the end of the tiered segments seen by the last round and, when the
 * log end offsets are given (LIST_OFFSETS latest through the SDK), the lag in records; plus the
 * last snapshot, the last round and its error. `lakeSnapshotResponse` is the same data in the
 * shape of Fluss's GET_LAKE_SNAPSHOT answer, for the Admin API.
 */

export interface BucketTieringStatus {
  readonly partitionId?: number
  readonly partitionName?: string
  readonly bucket: number
  readonly tieredOffset: number
  /** End of the tiered (uploaded) segments when the last round ran. */
  readonly remoteEndOffset?: number
  readonly logEndOffset?: number
  /** Records in the log not yet in the lake (`logEndOffset - tieredOffset`). */
  readonly lag?: number
}

export interface TieringStatus {
  readonly tableId: number
  readonly tieringEpoch: number
  /** The round holding the table now, if any. */
  readonly tieringBy: string | null
  readonly buckets: readonly BucketTieringStatus[]
  /** Sum of the bucket lags, when log end offsets were given. */
  readonly totalLag?: number
  readonly lastSnapshotId: bigint | null
  readonly lastSnapshotTimeMs: number | null
  readonly lastRoundStartMs: number | null
  readonly lastRoundEndMs: number | null
  readonly lastRoundRecords: number
  readonly lastError: string | null
  readonly lastErrorTimeMs: number | null
  readonly repairs: number
}

/** `<partitionId|->:<bucket>`, the key of `logEndOffsets`. */
export function bucketStatusKey(o: { readonly partitionId?: number; readonly bucket: number }): string {
  return `${o.partitionId ?? '-'}:${o.bucket}`
}

/** The status of a table from its item; `logEndOffsets` (by `bucketStatusKey`) adds the lag. */
export function statusOf(
  tableId: number,
  item: LakeItem,
  nowMs: number,
  logEndOffsets?: ReadonlyMap<string, number>,
): TieringStatus {
  const tiered = new Map(item.tieredOffsets.map(o => [bucketStatusKey(o), o]))
  const remote = new Map(item.remoteEndOffsets.map(o => [bucketStatusKey(o), o.offset]))
  const keys = new Set([...tiered.keys(), ...remote.keys(), ...(logEndOffsets?.keys() ?? [])])
  const buckets = [...keys].map(k => bucketStatus(k, tiered.get(k), remote.get(k), logEndOffsets?.get(k)))
  buckets.sort((a, b) => (a.partitionId ?? -1) - (b.partitionId ?? -1) || a.bucket - b.bucket)
  const lags = buckets.map(b => b.lag)
  return {
    tableId,
    tieringEpoch: item.tieringEpoch,
    tieringBy: item.claimExpiresAtMs > nowMs ? item.ownerId : null,
    buckets,
    ...(logEndOffsets === undefined ? {} : { totalLag: lags.reduce<number>((n, l) => n + (l ?? 0), 0) }),
    lastSnapshotId: item.lastSnapshotId,
    lastSnapshotTimeMs: item.lastSnapshotTimeMs,
    lastRoundStartMs: item.lastRoundStartMs,
    lastRoundEndMs: item.lastRoundEndMs,
    lastRoundRecords: item.lastRoundRecords,
    lastError: item.lastError,
    lastErrorTimeMs: item.lastErrorTimeMs,
    repairs: item.repairs,
  }
}

function bucketStatus(
  key: string,
  tiered: BucketOffset | undefined,
  remoteEnd: number | undefined,
  logEnd: number | undefined,
): BucketTieringStatus {
  const [partition, bucket] = key.split(':')
  const tieredOffset = tiered?.offset ?? 0
  return {
    ...(partition === '-' ? {} : { partitionId: Number(partition) }),
    ...(tiered?.partitionName === undefined ? {} : { partitionName: tiered.partitionName }),
    bucket: Number(bucket),
    tieredOffset,
    ...(remoteEnd === undefined ? {} : { remoteEndOffset: remoteEnd }),
    ...(logEnd === undefined ? {} : { logEndOffset: logEnd, lag: Math.max(0, logEnd - tieredOffset) }),
  }
}

/** The tiering status of a table (read from the MetaStore). */
export async function tieringStatus(
  metaStore: MetaStore,
  tableId: number,
  options: { readonly nowMs?: number; readonly logEndOffsets?: ReadonlyMap<string, number> } = {},
): Promise<TieringStatus> {
  const { item } = await readLakeItem(metaStore, tableId)
  return statusOf(tableId, item, options.nowMs ?? Date.now(), options.logEndOffsets)
}

/** The log end offset (LIST_OFFSETS latest) of every bucket of a table, every partition's included. */
export async function logEndOffsets(admin: Admin, info: TableInfo): Promise<Map<string, number>> {
  const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
  const out = new Map<string, number>()
  const partitions = info.isPartitioned ? await admin.listPartitionInfos(info.tablePath) : [undefined]
  for (const p of partitions) {
    const offsets = await admin.listOffsets(info.tablePath, buckets, 'latest', p?.partitionName)
    for (const [bucket, offset] of offsets) {
      out.set(bucketStatusKey({ ...(p === undefined ? {} : { partitionId: p.partitionId }), bucket }), offset)
    }
  }
  return out
}

/** The item as Fluss's GET_LAKE_SNAPSHOT answer; LAKE_SNAPSHOT_NOT_EXIST before the first snapshot. */
export function lakeSnapshotResponse(tableId: number, item: LakeItem): GetLakeSnapshotResponseInit {
  if (item.lastSnapshotId === null) {
    throw new FlussError('LAKE_SNAPSHOT_NOT_EXIST', `table ${tableId} has no lake snapshot yet`)
  }
  return {
    tableId,
    snapshotId: Number(item.lastSnapshotId),
    bucketSnapshots: item.tieredOffsets.map(o => ({
      bucketId: o.bucket,
      logOffset: o.offset,
      partitionId: o.partitionId ?? null,
      partitionName: o.partitionName ?? null,
    })),
  }
}
