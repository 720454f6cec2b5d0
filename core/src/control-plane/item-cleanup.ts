import { FlussError } from '../errors/index.js'
import {
  type BucketRef,
  bucketKey,
  type ItemKey,
  isMetaStoreConflict,
  kvSnapshotHeadKey,
  kvSnapshotSkPrefix,
  type MetaStore,
  partitionKey,
  remoteLogKey,
  tableIdKey,
  tableItemsPk,
  type VersionedItem,
} from '../metastore/index.js'
import type { PartitionRecord } from './partition-item.js'
import { mapBounded, queryAll } from './query-all.js'

/** Conditional-delete attempts against concurrent writers before giving up. */
const DELETE_ATTEMPTS_MAX = 8
/** Deletes in flight at once during a cleanup. */
export const CLEANUP_CONCURRENCY = 16

/**
 * Deletes one item whatever its version, re-reading after a lost race; `keep` may veto the delete
 * of what is found (e.g. the item was reused for something else). Returns whether it deleted.
 */
export async function deleteItem(
  store: MetaStore,
  key: ItemKey,
  found?: VersionedItem,
  keep: (item: VersionedItem) => boolean = () => false,
): Promise<boolean> {
  let current = found ?? (await store.get(key.pk, key.sk))
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS_MAX; attempt++) {
    if (current === undefined || keep(current)) return false
    try {
      await store.delete(key.pk, key.sk, { version: current.version })
      return true
    } catch (e) {
      if (!isMetaStoreConflict(e)) throw e
      current = e.current
    }
  }
  throw new FlussError(
    'METASTORE_CONFLICT',
    `deleting ${key.pk}/${key.sk} lost ${DELETE_ATTEMPTS_MAX} races in a row`,
  )
}

/**
 * Deletes everything stored under a table id: buckets, partitions, schemas, KV snapshot, remote log
 * and lake pointers, and the table item last, so an interrupted cleanup can always be found again
 * (through the table item) and resumed.
 */
export async function deleteTableItems(store: MetaStore, tableId: number): Promise<void> {
  const table = tableIdKey(tableId)
  const items = await queryAll(store, tableItemsPk(tableId), '')
  const others = items.filter(item => item.sk !== table.sk)
  await mapBounded(others, CLEANUP_CONCURRENCY, item => deleteItem(store, item, item))
  await deleteItem(store, table)
}

/**
 * Deletes the items of one partition: per bucket its LeaderAndIsr, KV snapshots and their head,
 * the remote log pointer, then the partition item itself unless the name was reused by a newer partition.
 */
export async function deletePartitionItems(
  store: MetaStore,
  partition: PartitionRecord,
  bucketCount: number,
): Promise<void> {
  const refs: BucketRef[] = Array.from({ length: bucketCount }, (_, bucket) => ({
    tableId: partition.tableId,
    partitionId: partition.partitionId,
    bucket,
  }))
  await mapBounded(refs, CLEANUP_CONCURRENCY, async ref => {
    const snapshots = await queryAll(store, tableItemsPk(ref.tableId), kvSnapshotSkPrefix(ref))
    for (const item of snapshots) await deleteItem(store, item, item)
    await deleteItem(store, kvSnapshotHeadKey(ref))
    await deleteItem(store, remoteLogKey(ref))
    await deleteItem(store, bucketKey(ref))
  })
  const reused = (item: VersionedItem) => item.value.partitionId !== partition.partitionId
  await deleteItem(store, partitionKey(partition.tableId, partition.partitionName), undefined, reused)
}
