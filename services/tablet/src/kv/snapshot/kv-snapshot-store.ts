import { type BlobStore, kvSnapshotTabletPrefix } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, realSleep } from '@sluice/core/util'
import { deleteKeys, listTabletKeys } from '../../remote/orphan-sweep.js'
import { KvSnapshotRegistry } from './kv-snapshot-registry.js'
import { downloadSnapshot, type TransferContext } from './kv-snapshot-transfer.js'
import type { KvSnapshot } from './kv-snapshot-types.js'
import { retryingCall } from './snapshot-retry.js'

export interface KvSnapshotStoreOptions {
  readonly blobStore: BlobStore
  readonly metaStore: MetaStore
  readonly retry?: Partial<RetryPolicy>
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
  /** Files downloaded at once; default 4. */
  readonly transferConcurrency?: number
}

const LIST_KEYS_MAX = 10_000
const DELETE_ROUNDS_MAX = 1000

/**
 * Reading side of the KV snapshots, for a new leader: the newest committed snapshot of a bucket and
 * its download into a RocksDB directory, every call retried with backoff; and the deletion of a
 * dropped bucket's snapshots.
 */
export class KvSnapshotStore {
  readonly registry: KvSnapshotRegistry
  readonly #transfer: TransferContext
  retries = 0

  constructor(readonly options: KvSnapshotStoreOptions) {
    this.registry = new KvSnapshotRegistry(options.metaStore)
    const call = retryingCall(
      'a bucket',
      { ...DEFAULT_RETRY_POLICY, ...options.retry },
      {
        sleep: options.sleep ?? realSleep,
        random: options.random ?? Math.random,
        isCancelled: () => false,
        onRetry: () => {
          this.retries++
        },
      },
    )
    this.#transfer = {
      blobStore: options.blobStore,
      call,
      concurrency: options.transferConcurrency ?? 4,
      nowMs: () => Date.now(),
    }
  }

  /** The newest committed snapshot of the bucket; null when it has none. */
  latest(bucket: TableBucket): Promise<KvSnapshot | null> {
    return this.#transfer.call('load latest kv snapshot', () => this.registry.latest(bucket))
  }

  /** Downloads `snapshot` into `dir` (replaced), every file checked for size and CRC-32C. */
  download(snapshot: KvSnapshot, dir: string): Promise<void> {
    return downloadSnapshot(this.#transfer, snapshot, dir)
  }

  /**
   * Deletes every snapshot of a dropped bucket: the objects under its prefix, its snapshot items,
   * then its head (last, so an interrupted delete is found again). Stop its snapshotter first.
   * Returns the number of objects deleted. Safe to repeat.
   */
  async deleteAll(bucket: TableBucket): Promise<number> {
    const { call, blobStore } = this.#transfer
    const prefix = kvSnapshotTabletPrefix(bucket)
    let deleted = 0
    for (let round = 0; round < DELETE_ROUNDS_MAX; round++) {
      const keys = await listTabletKeys(blobStore, prefix, LIST_KEYS_MAX, call)
      if (keys.length === 0) break
      deleted += await deleteKeys(blobStore, keys, call)
    }
    for (const id of await call('list kv snapshot items', () => this.registry.listIds(bucket))) {
      await call('delete kv snapshot item', () => this.registry.delete(bucket, id))
    }
    await call('delete kv snapshot head', () => this.registry.deleteHead(bucket))
    return deleted
  }

  /** Downloads the newest committed snapshot into `dir`; null (and `dir` untouched) when there is none. */
  async restoreLatest(bucket: TableBucket, dir: string): Promise<KvSnapshot | null> {
    const snapshot = await this.latest(bucket)
    if (snapshot !== null) await this.download(snapshot, dir)
    return snapshot
  }
}

/** `store.restoreLatest(bucket, dir)`: a fresh RocksDB directory from the newest snapshot. */
export function restoreLatestSnapshot(
  store: KvSnapshotStore,
  bucket: TableBucket,
  dir: string,
): Promise<KvSnapshot | null> {
  return store.restoreLatest(bucket, dir)
}
