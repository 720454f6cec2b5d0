import type { TableBucket } from '@sluice/core/metadata'
import { isRemoteId } from '@sluice/core/remotelog'

/**
 * Object keys of KV snapshots. Under one bucket's snapshot prefix
 *
 *   kv-snapshots/<tableId>/<partitionId|_>/<bucket>/shared/<uploadId>-<sstName>
 *   kv-snapshots/<tableId>/<partitionId|_>/<bucket>/<snapshotId>/<uploadId>-<fileName>
 *
 * SST files are immutable and shared between snapshots (an incremental snapshot refers to the SST
 * files of the previous one that RocksDB still uses); MANIFEST, CURRENT and OPTIONS belong to one
 * snapshot. Every upload gets a fresh id (UUID v7, which embeds its creation time): two leaders, or
 * a retry after a crash, never write the same key, so deleting one's leftovers never touches
 * another's files, and a sweeper can tell an abandoned upload (old) from one in flight (young).
 */
export const KV_SNAPSHOT_ROOT = 'kv-snapshots'
export const KV_SNAPSHOT_SHARED_DIR = 'shared'
const NO_PARTITION = '_'
const UPLOAD_ID_LENGTH = 36

/** `kv-snapshots/<tableId>/<partitionId|_>/<bucket>` */
export function kvSnapshotTabletPrefix(bucket: TableBucket): string {
  const partition = bucket.partitionId === undefined ? NO_PARTITION : String(bucket.partitionId)
  return `${KV_SNAPSHOT_ROOT}/${bucket.tableId}/${partition}/${bucket.bucket}`
}

export function sharedFileKey(tabletPrefix: string, uploadId: string, fileName: string): string {
  return `${tabletPrefix}/${KV_SNAPSHOT_SHARED_DIR}/${uploadId}-${fileName}`
}

export function privateFileKey(
  tabletPrefix: string,
  snapshotId: number,
  uploadId: string,
  fileName: string,
): string {
  return `${tabletPrefix}/${snapshotId}/${uploadId}-${fileName}`
}

/** What a key under a bucket's snapshot prefix is; null for keys that are not ours. */
export interface KvSnapshotObject {
  readonly uploadId: string
  readonly fileName: string
  /** The snapshot a private file belongs to; null for shared files. */
  readonly snapshotId: number | null
}

export function parseKvSnapshotObjectKey(tabletPrefix: string, key: string): KvSnapshotObject | null {
  if (!key.startsWith(`${tabletPrefix}/`)) return null
  const parts = key.slice(tabletPrefix.length + 1).split('/')
  if (parts.length !== 2) return null
  const [dir, file] = parts as [string, string]
  const uploadId = file.slice(0, UPLOAD_ID_LENGTH)
  if (!isRemoteId(uploadId) || file[UPLOAD_ID_LENGTH] !== '-' || file.length <= UPLOAD_ID_LENGTH + 1)
    return null
  const fileName = file.slice(UPLOAD_ID_LENGTH + 1)
  if (dir === KV_SNAPSHOT_SHARED_DIR) return { uploadId, fileName, snapshotId: null }
  if (!/^\d+$/.test(dir) || !Number.isSafeInteger(Number(dir))) return null
  return { uploadId, fileName, snapshotId: Number(dir) }
}
