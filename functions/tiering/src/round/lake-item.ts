import { corruptItem, ITEM_FORMAT, ItemReader } from '@sluice/core/control-plane'
import {
  type ItemValue,
  type JsonValue,
  lakeKey,
  type MetaStore,
  type VersionedItem,
} from '@sluice/core/metastore'
import type { FlussBucketOffset } from '@sluice/lake/iceberg'

/**
 * The tiering item of a table (`TABLE#<id>/LAKE`): who tiers the table (a claim fenced by the
 * tiering epoch), how far it is tiered, and what the last round did. It is the tiering status
 * Admin calls report and what a tablet server reads to know which remote segments are safe to
 * expire. The lake's own snapshot summary (`fluss-offsets`) stays the truth for where tiering
 * resumes; this item mirrors it and is repaired from it.
 *
 *   { format, tieringEpoch, ownerId, claimExpiresAtMs (0 = free),
 *     tieredOffsets: [{ partitionId?, partitionName?, bucket, offset }]  (exclusive ends),
 *     remoteEndOffsets: [{ partitionId?, bucket, offset }]  (tiered-segment ends seen last round),
 *     lastSnapshotId (decimal string | null), lastSnapshotTimeMs, lastRoundStartMs, lastRoundEndMs,
 *     lastRoundRecords, lastRoundBytes, lastError, lastErrorTimeMs, lastMaintenanceMs, repairs }
 */

export interface BucketOffset {
  readonly partitionId?: number
  readonly partitionName?: string
  readonly bucket: number
  readonly offset: number
}

export interface LakeItem {
  readonly tieringEpoch: number
  readonly ownerId: string | null
  readonly claimExpiresAtMs: number
  readonly tieredOffsets: readonly BucketOffset[]
  readonly remoteEndOffsets: readonly BucketOffset[]
  readonly lastSnapshotId: bigint | null
  readonly lastSnapshotTimeMs: number | null
  readonly lastRoundStartMs: number | null
  readonly lastRoundEndMs: number | null
  readonly lastRoundRecords: number
  readonly lastRoundBytes: number
  readonly lastError: string | null
  readonly lastErrorTimeMs: number | null
  readonly lastMaintenanceMs: number | null
  /** Rounds that adopted the lake's offsets after a crash between the two commits. */
  readonly repairs: number
}

export const EMPTY_LAKE_ITEM: LakeItem = {
  tieringEpoch: 0,
  ownerId: null,
  claimExpiresAtMs: 0,
  tieredOffsets: [],
  remoteEndOffsets: [],
  lastSnapshotId: null,
  lastSnapshotTimeMs: null,
  lastRoundStartMs: null,
  lastRoundEndMs: null,
  lastRoundRecords: 0,
  lastRoundBytes: 0,
  lastError: null,
  lastErrorTimeMs: null,
  lastMaintenanceMs: null,
  repairs: 0,
}

/** Longest error message kept in the item. */
const ERROR_CHARS_MAX = 1000

export interface StoredLakeItem {
  readonly item: LakeItem
  /** The MetaStore version to condition the next write on. */
  readonly version: number | 'absent'
}

function offsetsJson(offsets: readonly BucketOffset[]): JsonValue {
  return offsets.map(o => ({
    ...(o.partitionId === undefined ? {} : { partitionId: o.partitionId }),
    ...(o.partitionName === undefined ? {} : { partitionName: o.partitionName }),
    bucket: o.bucket,
    offset: o.offset,
  }))
}

export function lakeItemValue(item: LakeItem): ItemValue {
  return {
    format: ITEM_FORMAT,
    tieringEpoch: item.tieringEpoch,
    ownerId: item.ownerId,
    claimExpiresAtMs: item.claimExpiresAtMs,
    tieredOffsets: offsetsJson(item.tieredOffsets),
    remoteEndOffsets: offsetsJson(item.remoteEndOffsets),
    lastSnapshotId: item.lastSnapshotId === null ? null : String(item.lastSnapshotId),
    lastSnapshotTimeMs: item.lastSnapshotTimeMs,
    lastRoundStartMs: item.lastRoundStartMs,
    lastRoundEndMs: item.lastRoundEndMs,
    lastRoundRecords: item.lastRoundRecords,
    lastRoundBytes: item.lastRoundBytes,
    lastError: item.lastError === null ? null : item.lastError.slice(0, ERROR_CHARS_MAX),
    lastErrorTimeMs: item.lastErrorTimeMs,
    lastMaintenanceMs: item.lastMaintenanceMs,
    repairs: item.repairs,
  }
}

function decodeOffsets(stored: VersionedItem, field: string): BucketOffset[] {
  const v = stored.value[field]
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw corruptItem(stored, `field '${field}' is not a list`)
  return v.map(e => {
    const o = e as Record<string, unknown>
    const int = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
    if (typeof o !== 'object' || o === null || !int(o.bucket) || !int(o.offset)) {
      throw corruptItem(stored, `field '${field}' holds an invalid entry ${JSON.stringify(e)}`)
    }
    return {
      ...(int(o.partitionId) ? { partitionId: o.partitionId as number } : {}),
      ...(typeof o.partitionName === 'string' ? { partitionName: o.partitionName } : {}),
      bucket: o.bucket as number,
      offset: o.offset as number,
    }
  })
}

export function decodeLakeItem(stored: VersionedItem): LakeItem {
  const r = new ItemReader(stored)
  const snapshotId = r.stringOrNull('lastSnapshotId')
  if (snapshotId !== null && !/^\d+$/.test(snapshotId))
    throw corruptItem(stored, 'lastSnapshotId is not a number')
  return {
    tieringEpoch: r.int('tieringEpoch'),
    ownerId: r.stringOrNull('ownerId'),
    claimExpiresAtMs: r.int('claimExpiresAtMs'),
    tieredOffsets: decodeOffsets(stored, 'tieredOffsets'),
    remoteEndOffsets: decodeOffsets(stored, 'remoteEndOffsets'),
    lastSnapshotId: snapshotId === null ? null : BigInt(snapshotId),
    lastSnapshotTimeMs: r.intOrNull('lastSnapshotTimeMs'),
    lastRoundStartMs: r.intOrNull('lastRoundStartMs'),
    lastRoundEndMs: r.intOrNull('lastRoundEndMs'),
    lastRoundRecords: r.intOrNull('lastRoundRecords') ?? 0,
    lastRoundBytes: r.intOrNull('lastRoundBytes') ?? 0,
    lastError: r.stringOrNull('lastError'),
    lastErrorTimeMs: r.intOrNull('lastErrorTimeMs'),
    lastMaintenanceMs: r.intOrNull('lastMaintenanceMs'),
    repairs: r.intOrNull('repairs') ?? 0,
  }
}

export async function readLakeItem(metaStore: MetaStore, tableId: number): Promise<StoredLakeItem> {
  const { pk, sk } = lakeKey(tableId)
  const stored = await metaStore.get(pk, sk)
  return stored === undefined
    ? { item: EMPTY_LAKE_ITEM, version: 'absent' }
    : { item: decodeLakeItem(stored), version: stored.version }
}

/** `fluss-offsets` entries as item offsets. */
export function bucketOffsetsOf(offsets: readonly FlussBucketOffset[]): BucketOffset[] {
  return offsets.map(o => ({ ...o }))
}
