import { blobLocation } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { mapBounded } from './kv-snapshot-files.js'
import { KvSnapshotRegistry } from './kv-snapshot-registry.js'

/**
 * Whether GetLatestKvSnapshots tells clients about snapshots. It does not: Fluss's Java client
 * reads a snapshot by downloading its files and opening them with its bundled RocksDB (FRocksDB
 * 6.20.3), which cannot read the SST files RocksDB 10.5 writes here (block-based table format
 * version 6, readable from RocksDB 8.6 on), and it would decode the store's reserved meta record
 * (empty key) as a row. Without snapshot ids clients read primary-key tables from the changelog.
 */
export const ADVERTISE_KV_SNAPSHOTS_TO_CLIENTS = false

/** One bucket's newest committed snapshot (both null when it has none). */
export interface BucketKvSnapshot {
  readonly bucketId: number
  readonly snapshotId: number | null
  readonly logOffset: number | null
}

const READ_CONCURRENCY = 8

/** The newest committed snapshot of every bucket of a table (or of one partition). */
export async function latestKvSnapshots(
  metaStore: MetaStore,
  tableId: number,
  partitionId: number | null,
  bucketCount: number,
): Promise<BucketKvSnapshot[]> {
  const registry = new KvSnapshotRegistry(metaStore)
  const buckets = Array.from({ length: bucketCount }, (_, b) =>
    tableBucket(tableId, b, partitionId ?? undefined),
  )
  return mapBounded(buckets, READ_CONCURRENCY, async b => {
    const latest = await registry.latest(b)
    return {
      bucketId: b.bucket,
      snapshotId: latest?.snapshotId ?? null,
      logOffset: latest?.logOffset ?? null,
    }
  })
}

/** GetLatestKvSnapshots' per-bucket entries as sent to clients (ids only, see above). */
export function kvSnapshotsForClients(
  snapshots: readonly BucketKvSnapshot[],
): { bucketId: number; snapshotId?: number | null; logOffset?: number | null }[] {
  if (ADVERTISE_KV_SNAPSHOTS_TO_CLIENTS) return snapshots.map(s => ({ ...s }))
  return snapshots.map(s => ({ bucketId: s.bucketId }))
}

/** GetKvSnapshotMetadata's data: the snapshot's log offset and its files as clients address them. */
export interface KvSnapshotMetadata {
  readonly logOffset: number
  readonly snapshotFiles: { readonly remotePath: string; readonly localFileName: string }[]
}

/**
 * The files of a committed snapshot, under `remoteDataDir` (the BlobStore root as clients reach
 * it). KV_SNAPSHOT_NOT_EXIST when the snapshot is not (or no longer) committed.
 */
export async function kvSnapshotMetadata(
  metaStore: MetaStore,
  bucket: TableBucket,
  snapshotId: number,
  remoteDataDir: string,
): Promise<KvSnapshotMetadata> {
  const registry = new KvSnapshotRegistry(metaStore)
  const head = await registry.loadHead(bucket)
  const snapshot = head?.head.retained.includes(snapshotId) ? await registry.get(bucket, snapshotId) : null
  if (snapshot === null) {
    throw new FlussError(
      'KV_SNAPSHOT_NOT_EXIST',
      `Failed to get kv snapshot ${snapshotId} of bucket ${bucket.bucket} of table ${bucket.tableId}: it does not exist.`,
    )
  }
  return {
    logOffset: snapshot.logOffset,
    snapshotFiles: snapshot.files.map(f => ({
      remotePath: blobLocation(remoteDataDir, f.key),
      localFileName: f.name,
    })),
  }
}
