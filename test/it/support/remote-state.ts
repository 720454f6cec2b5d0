import { type BlobStore, parseRemoteLogKey, remoteLogTabletPrefix } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import {
  kvSnapshotHeadKey,
  kvSnapshotSkPrefix,
  type MetaStore,
  parseKvSnapshotSk,
  type VersionedItem,
} from '@sluice/core/metastore'
import { crc32c } from '@sluice/core/record'
import { type RemoteLogManifest, RemoteLogManifestStore, type StoredManifest } from '@sluice/core/remotelog'

/**
 * The remote storage of a bucket as the metadata store and the blob store hold it, read directly
 * (independent of the servers): the KV snapshot registry (a head listing the committed snapshots,
 * one item per snapshot) and the remote log manifest, with checks of the objects they name.
 */

export interface KvSnapshotFileRecord {
  readonly key: string
  readonly name: string
  readonly size: number
  readonly crc32c: number
  readonly role: string
}

export interface KvSnapshotRecord {
  readonly snapshotId: number
  /** The changelog offset the snapshot covers (exclusive). */
  readonly logOffset: number
  readonly leaderEpoch: number
  readonly files: readonly KvSnapshotFileRecord[]
}

export interface KvSnapshotRegistryState {
  /** The committed snapshots, oldest first (the head's `retained`). */
  readonly retained: readonly number[]
  readonly nextSnapshotId: number
  /** Every snapshot item, committed or not, by id. */
  readonly items: ReadonlyMap<number, KvSnapshotRecord>
}

/** The bucket's KV snapshot registry; null when it has no head yet. */
export async function readKvSnapshotRegistry(
  metaStore: MetaStore,
  bucket: TableBucket,
): Promise<KvSnapshotRegistryState | null> {
  const { pk, sk } = kvSnapshotHeadKey(bucket)
  const head = await metaStore.get(pk, sk)
  if (head === undefined) return null
  const items = new Map<number, KvSnapshotRecord>()
  let cursor: string | undefined
  do {
    const page = await metaStore.query(pk, {
      skPrefix: kvSnapshotSkPrefix(bucket),
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    })
    for (const item of page.items) items.set(parseKvSnapshotSk(item.sk).snapshotId, snapshotOf(item))
    cursor = page.cursor
  } while (cursor !== undefined)
  return {
    retained: head.value.retained as number[],
    nextSnapshotId: head.value.nextSnapshotId as number,
    items,
  }
}

function snapshotOf(item: VersionedItem): KvSnapshotRecord {
  const v = item.value
  return {
    snapshotId: v.snapshotId as number,
    logOffset: v.logOffset as number,
    leaderEpoch: v.leaderEpoch as number,
    files: v.files as unknown as KvSnapshotFileRecord[],
  }
}

/** The newest committed snapshot of the bucket, or null. */
export async function latestKvSnapshot(
  metaStore: MetaStore,
  bucket: TableBucket,
): Promise<KvSnapshotRecord | null> {
  const registry = await readKvSnapshotRegistry(metaStore, bucket)
  const id = registry?.retained.at(-1)
  return id === undefined ? null : (registry?.items.get(id) ?? null)
}

/** Problems with a snapshot's files in the blob store (missing, other size or CRC-32C), or []. */
export async function snapshotFileProblems(
  blobStore: BlobStore,
  snapshot: KvSnapshotRecord,
): Promise<string[]> {
  const problems: string[] = []
  if (!snapshot.files.some(f => f.name === 'CURRENT'))
    problems.push(`snapshot ${snapshot.snapshotId} has no CURRENT file`)
  for (const f of snapshot.files) {
    const bytes = await blobStore.get(f.key)
    if (bytes === undefined) problems.push(`snapshot ${snapshot.snapshotId}: ${f.key} is missing`)
    else if (bytes.length !== f.size || crc32c(bytes) !== f.crc32c)
      problems.push(`snapshot ${snapshot.snapshotId}: ${f.key} has other bytes than listed`)
  }
  return problems
}

/** The committed remote log manifest of a bucket (an empty one when none was committed). */
export function loadRemoteManifest(
  metaStore: MetaStore,
  blobStore: BlobStore,
  bucket: TableBucket,
): Promise<StoredManifest> {
  const store = new RemoteLogManifestStore(metaStore, blobStore, {
    inlineBytesMax: 64 * 1024,
    nowMs: () => Date.now(),
  })
  return store.load(bucket)
}

/** Objects a manifest names (segment files; the writer snapshot only where recorded) that are missing. */
export async function missingSegmentObjects(
  blobStore: BlobStore,
  manifest: RemoteLogManifest,
): Promise<string[]> {
  const missing: string[] = []
  for (const s of manifest.segments) {
    const keys = manifest.keysOf(s)
    const named = [
      keys.log,
      keys.index,
      keys.timeIndex,
      ...(s.hasWriterSnapshot ? [keys.writerSnapshot] : []),
    ]
    for (const key of named) if ((await blobStore.head(key)) === undefined) missing.push(key)
    const log = await blobStore.head(keys.log)
    if (log !== undefined && log.size !== s.sizeInBytes)
      missing.push(`${keys.log} (${log.size} bytes, the manifest says ${s.sizeInBytes})`)
  }
  return missing
}

/** Segment ids that have objects under the bucket's remote log prefix but are not in the manifest. */
export async function unreferencedSegmentIds(
  blobStore: BlobStore,
  bucket: TableBucket,
  manifest: RemoteLogManifest,
): Promise<string[]> {
  const prefix = remoteLogTabletPrefix(bucket)
  const ids = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await blobStore.list(`${prefix}/`, cursor === undefined ? {} : { cursor })
    for (const item of page.items) {
      const object = parseRemoteLogKey(prefix, item.key)
      if (object?.kind === 'segment' && !manifest.has(object.id)) ids.add(object.id)
    }
    cursor = page.cursor
  } while (cursor !== undefined)
  return [...ids]
}
