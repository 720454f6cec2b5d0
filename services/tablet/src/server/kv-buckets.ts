import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { BlobStore } from '@sluice/core/blobstore'
import {
  type Configuration,
  DATA_DIR,
  KV_RECOVER_LOG_RECORD_BATCH_MAX_SIZE,
  SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE,
  SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS,
} from '@sluice/core/config'
import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { ControlPlane } from '../control-plane/control-plane.js'
import {
  KvRowCache,
  type KvSnapshotLogger,
  KvSnapshotStore,
  KvSnapshotter,
  type KvTablet,
  kvSnapshotSettings,
  metaStoreAutoIncrementIds,
  openKvTabletWithRecovery,
  type RemoteChangelogSource,
  RocksDbKv,
  rocksDbKvOptions,
  withRemoteChangelog,
} from '../kv/index.js'
import type { Replica } from '../replica/replica.js'
import { tabletParentDir } from '../replica/replica-paths.js'

/** Bound on a bucket's pre-write buffer: puts wait for replication beyond it (RESOURCE_EXHAUSTED). */
export const KV_MAX_PENDING_BYTES = 256 * 1024 * 1024

export interface KvBucketsOptions {
  readonly config: Configuration
  readonly controlPlane: ControlPlane
  /** KV snapshots need both stores; without them buckets recover from the log alone. */
  readonly blobStore?: BlobStore
  readonly metaStore?: MetaStore
  /** The remote log of a bucket led here (recovery reads the changelog below the local start). */
  readonly remoteChangelog?: (bucket: TableBucket) => RemoteChangelogSource | null
  readonly logger: KvSnapshotLogger
}

/** The KV state of one primary-key bucket led here. */
interface KvBucket {
  readonly leaderEpoch: number
  readonly kv: KvTablet
  readonly snapshotter: KvSnapshotter | null
}

/** `<table dir>/kv-<bucket>`: beside the bucket's `log-<bucket>`. */
export function kvTabletDir(dataDir: string, replica: Replica): string {
  return join(
    tabletParentDir(dataDir, replica.physicalTablePath, replica.tableBucket),
    `kv-${replica.tableBucket.bucket}`,
  )
}

function checkpointDir(dataDir: string, replica: Replica): string {
  const parent = tabletParentDir(dataDir, replica.physicalTablePath, replica.tableBucket)
  return join(parent, `kv-${replica.tableBucket.bucket}-checkpoints`)
}

/**
 * The KvTablets of the primary-key buckets this server leads (Fluss's KvManager part of the
 * ReplicaManager), driven by the replicas' leadership hooks: a new leader opens its KvTablet
 * (local RocksDB, else the newest KV snapshot, else the whole changelog) and starts periodic
 * snapshots; a leader that steps down stops them and closes the KvTablet, keeping its directory
 * for a later leadership. The high watermark of a primary-key bucket never passes what its
 * KvTablet flushed.
 */
export class KvBuckets {
  readonly #options: KvBucketsOptions
  readonly #buckets = new Map<string, KvBucket>()
  readonly #snapshotStore: KvSnapshotStore | null
  readonly #dataDir: string
  /** Shared by every bucket's RocksDB; null when `sluice.tablet-server.kv.row-cache-size` is 0. */
  readonly #rowCache: KvRowCache | null

  constructor(options: KvBucketsOptions) {
    this.#options = options
    this.#dataDir = options.config.get(DATA_DIR)
    const rowCacheBytes = options.config.get(SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE)
    this.#rowCache = rowCacheBytes > 0 ? new KvRowCache(rowCacheBytes) : null
    const { blobStore, metaStore } = options
    this.#snapshotStore =
      blobStore === undefined || metaStore === undefined
        ? null
        : new KvSnapshotStore({ blobStore, metaStore })
  }

  /** The open KvTablet of a bucket led here, or null. */
  /** The KV tablets and snapshotters of the buckets led here (metrics). */
  leaders(): Iterable<{ readonly kv: KvTablet; readonly snapshotter: KvSnapshotter | null }> {
    return this.#buckets.values()
  }

  kvTablet(bucket: TableBucket): KvTablet | null {
    const entry = this.#buckets.get(tableBucketKey(bucket))
    return entry === undefined || entry.kv.isClosed ? null : entry.kv
  }

  /** The changelog offset the newest KV snapshot covers (remote segments below it may go). */
  snapshotOffset(bucket: TableBucket): number {
    return this.#buckets.get(tableBucketKey(bucket))?.snapshotter?.latest?.logOffset ?? 0
  }

  async onBecomeLeader(replica: Replica): Promise<void> {
    if (!replica.tableInfo.hasPrimaryKey) return
    await this.#close(replica.tableBucket)
    const leaderEpoch = replica.leaderEpoch
    await replica.schemas.preload()
    const { kv } = await openKvTabletWithRecovery({
      bucketDir: kvTabletDir(this.#dataDir, replica),
      tableBucket: replica.tableBucket,
      options: {
        ...this.#kvOptions(replica),
        isLeader: () => replica.isLeader && replica.leaderEpoch === leaderEpoch,
      },
      snapshotStore: this.#snapshotStore,
      logger: this.#options.logger,
    })
    if (!replica.isLeader || replica.leaderEpoch !== leaderEpoch) {
      await kv.close()
      return
    }
    const snapshotter = this.#startSnapshotter(replica, kv)
    this.#buckets.set(tableBucketKey(replica.tableBucket), { leaderEpoch, kv, snapshotter })
    // High-watermark moves were held while the KvTablet opened: let them happen now.
    replica.maybeIncrementLeaderHW()
  }

  async onBecomeFollower(replica: Replica): Promise<void> {
    await this.#close(replica.tableBucket)
  }

  /**
   * The highest offset a primary-key leader's high watermark may move to: the KvTablet flushes its
   * pre-write buffer up to `candidate` first. While the KvTablet is not open, the high watermark
   * stays (moving it would acknowledge writes lookups cannot see yet).
   */
  async beforeHighWatermarkAdvance(replica: Replica, candidate: number): Promise<number> {
    if (!replica.tableInfo.hasPrimaryKey) return candidate
    const entry = this.#buckets.get(tableBucketKey(replica.tableBucket))
    if (entry === undefined || entry.kv.isClosed || entry.leaderEpoch !== replica.leaderEpoch) {
      return replica.logTablet.highWatermark
    }
    return entry.kv.flush(candidate)
  }

  /** A deleted replica: its RocksDB directory, and with `deleteRemote` its KV snapshots, go. */
  async onReplicaStopped(replica: Replica, deleteLocal: boolean, deleteRemote: boolean): Promise<void> {
    if (!replica.tableInfo.hasPrimaryKey) return
    await this.#close(replica.tableBucket)
    if (deleteLocal) {
      await RocksDbKv.destroy(kvTabletDir(this.#dataDir, replica))
      await rm(checkpointDir(this.#dataDir, replica), { recursive: true, force: true })
    }
    if (deleteRemote) await this.#snapshotStore?.deleteAll(replica.tableBucket)
  }

  /** Stops every snapshotter and closes every KvTablet (server stop). */
  async close(): Promise<void> {
    for (const key of [...this.#buckets.keys()]) await this.#closeKey(key)
  }

  #kvOptions(replica: Replica) {
    const { config, metaStore } = this.#options
    const remote = this.#options.remoteChangelog?.(replica.tableBucket) ?? null
    // New ranges for every leadership: whatever a former leader drew is never handed out again.
    const ids = metaStore === undefined ? null : metaStoreAutoIncrementIds(metaStore, replica.tableInfo)
    return {
      ...(ids === null ? {} : { autoIncrementIds: ids }),
      log: withRemoteChangelog(replica.logTablet, remote),
      schemas: replica.schemas,
      tableConfig: replica.tableInfo.tableConfig,
      rocksDb: { ...rocksDbKvOptions(config), rowCache: this.#rowCache },
      recoverBatchBytes: config.get(KV_RECOVER_LOG_RECORD_BATCH_MAX_SIZE),
      maxQueuedOperations: config.get(SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS),
      maxPendingBytes: KV_MAX_PENDING_BYTES,
      name: replica.name,
    }
  }

  #startSnapshotter(replica: Replica, kv: KvTablet): KvSnapshotter | null {
    const { blobStore, metaStore, config, logger } = this.#options
    if (blobStore === undefined || metaStore === undefined) return null
    const snapshotter = new KvSnapshotter({
      tableBucket: replica.tableBucket,
      kv,
      leaderEpoch: replica.leaderEpoch,
      blobStore,
      metaStore,
      checkpointDir: checkpointDir(this.#dataDir, replica),
      ...kvSnapshotSettings(config),
      logger,
      onFenced: error =>
        logger.warn('kv snapshots stopped: a newer leader commits them', {
          bucket: replica.name,
          error: error.message,
        }),
    })
    snapshotter.start()
    return snapshotter
  }

  #close(bucket: TableBucket): Promise<void> {
    return this.#closeKey(tableBucketKey(bucket))
  }

  async #closeKey(key: string): Promise<void> {
    const entry = this.#buckets.get(key)
    if (entry === undefined) return
    this.#buckets.delete(key)
    await entry.snapshotter?.stop()
    await entry.kv.close()
  }
}
