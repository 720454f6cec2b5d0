import { type BlobStore, parseKvSnapshotObjectKey } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import { remoteIdTimestampMs } from '@sluice/core/remotelog'
import { deleteKeys, listTabletKeys } from '../../remote/orphan-sweep.js'
import type { KvSnapshotRegistry } from './kv-snapshot-registry.js'
import type { SnapshotCall } from './snapshot-retry.js'

export interface KvSnapshotSweepDeps {
  readonly tableBucket: TableBucket
  readonly tabletPrefix: string
  readonly registry: KvSnapshotRegistry
  readonly blobStore: BlobStore
  readonly call: SnapshotCall
}

/**
 * Deletes objects under a bucket's snapshot prefix that no snapshot item lists (committed or not)
 * and that were uploaded more than `safetyWindowMs` ago: leftovers of killed uploads. Younger ones
 * may belong to an upload on its way to a commit, this leader's or another's. Keys are listed
 * before the items are read, so a snapshot committed meanwhile counts as listed. Keys that are not
 * ours are never touched. Returns how many objects were deleted.
 */
export async function sweepKvSnapshotOrphans(
  deps: KvSnapshotSweepDeps,
  nowMs: number,
  safetyWindowMs: number,
  maxKeys: number,
): Promise<number> {
  const { registry, tableBucket: b, call, blobStore, tabletPrefix } = deps
  const keys = await listTabletKeys(blobStore, tabletPrefix, maxKeys, call)
  const ids = await call('list kv snapshot items', () => registry.listIds(b))
  const listed = new Set<string>()
  for (const id of ids) {
    const item = await call('load kv snapshot', () => registry.get(b, id))
    for (const f of item?.files ?? []) listed.add(f.key)
  }
  const orphans = keys.filter(key => {
    const object = parseKvSnapshotObjectKey(tabletPrefix, key)
    if (object === null || listed.has(key)) return false
    const createdMs = remoteIdTimestampMs(object.uploadId)
    return createdMs !== null && nowMs - createdMs > safetyWindowMs
  })
  return deleteKeys(blobStore, orphans, call)
}
