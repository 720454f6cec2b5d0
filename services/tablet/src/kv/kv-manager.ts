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
import {
  type PhysicalTablePath,
  type TableBucket,
  type TableInfo,
  tableBucketKey,
} from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { LogTablet } from '../log/index.js'
import { tabletParentDir } from '../replica/replica-paths.js'
import { metaStoreAutoIncrementIds } from './auto-increment-ids.js'
import { type KeyRouter, keyRouter } from './key-routing.js'
import { KvRowCache } from './kv-row-cache.js'
import type { KvTablet } from './kv-tablet.js'
import { RocksDbKv, rocksDbKvOptions } from './rocksdb-kv.js'
import {
  type KvSnapshotLogger,
  KvSnapshotStore,
  KvSnapshotter,
  kvSnapshotSettings,
  openKvTabletWithRecovery,
  type RemoteChangelogSource,
  withRemoteChangelog,
} from './snapshot/index.js'
import type { TableSchemas } from './table-schemas.js'

/** Bound on a bucket's pre-write buffer: puts wait for replication beyond it (RESOURCE_EXHAUSTED). */
export const KV_MAX_PENDING_BYTES = 256 * 1024 * 1024

export interface KvManagerOptions {
  readonly config: Configuration
  /** KV snapshots need both stores; without them buckets recover from the log alone. */
  readonly blobStore?: BlobStore
  readonly metaStore?: MetaStore
  /** The remote log of a bucket led here (recovery reads the changelog below the local start). */
  readonly remoteChangelog?: (bucket: TableBucket) => RemoteChangelogSource | null
  readonly logger: KvSnapshotLogger
  /**
   * The key router the keys of a table's requests are checked with (default `keyRouter`: every
   * key is checked). Not a setting: benchmarks measure the check's cost with one that answers
   * undefined (keys not checked).
   */
  readonly keyRouterOf?: (table: TableInfo) => KeyRouter | undefined
}

/** The replica of a primary-key bucket as the KvManager opens, closes and deletes its KV state. */
export interface KvReplica {
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly tableInfo: TableInfo
  /** The table's schemas and the key encoding of its KV keys. */
  readonly schemas: TableSchemas
  readonly logTablet: LogTablet
  readonly leaderEpoch: number
  readonly isLeader: boolean
  readonly name: string
}

/** The KV state of one primary-key bucket led here. */
interface KvBucket {
  readonly kv: KvTablet
  readonly snapshotter: KvSnapshotter | null
}

/** `<table dir>/kv-<bucket>`: beside the bucket's `log-<bucket>`. */
export function kvTabletDir(
  dataDir: string,
  replica: Pick<KvReplica, 'physicalTablePath' | 'tableBucket'>,
): string {
  return join(
    tabletParentDir(dataDir, replica.physicalTablePath, replica.tableBucket),
    `kv-${replica.tableBucket.bucket}`,
  )
}

function checkpointDir(
  dataDir: string,
  replica: Pick<KvReplica, 'physicalTablePath' | 'tableBucket'>,
): string {
  const parent = tabletParentDir(dataDir, replica.physicalTablePath, replica.tableBucket)
  return join(parent, `kv-${replica.tableBucket.bucket}-checkpoints`)
}

/**
 * The KvTablets of the primary-key buckets this server leads (Fluss's `KvManager`): the replica of
 * a new leader opens its KvTablet here (local RocksDB, else the newest KV snapshot, else the whole
 * changelog) and periodic snapshots start; a leader that steps down stops them and closes the
 * KvTablet, keeping its directory for a later leadership; a deleted replica's directory (and with
 * `deleteRemote` its snapshots) goes. One row cache serves every bucket's RocksDB.
 */
export class KvManager {
  readonly #options: KvManagerOptions
  readonly #buckets = new Map<string, KvBucket>()
  readonly #snapshotStore: KvSnapshotStore | null
  readonly #dataDir: string
  /** Shared by every bucket's RocksDB; null when `sluice.tablet-server.kv.row-cache-size` is 0. */
  readonly #rowCache: KvRowCache | null

  constructor(options: KvManagerOptions) {
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

  /** Which bucket each key of `table` belongs to; undefined: its keys are not checked. */
  keyRouterOf(table: TableInfo): KeyRouter | undefined {
    return (this.#options.keyRouterOf ?? keyRouter)(table)
  }

  /** The KV tablets and snapshotters of the buckets led here (metrics). */
  leaders(): Iterable<{ readonly kv: KvTablet; readonly snapshotter: KvSnapshotter | null }> {
    return this.#buckets.values()
  }

  /** The changelog offset the newest KV snapshot covers (remote segments below it may go). */
  snapshotOffset(bucket: TableBucket): number {
    return this.#buckets.get(tableBucketKey(bucket))?.snapshotter?.latest?.logOffset ?? 0
  }

  /**
   * Opens the KvTablet of a bucket whose replica now leads it, for the leader epoch it holds now
   * (a KvTablet still open for the bucket is closed first), with the table's schemas loaded, and
   * starts its snapshots. Resolves to null, leaving nothing open, when the replica no longer leads
   * that epoch once the KvTablet is open.
   */
  async openKv(replica: KvReplica): Promise<KvTablet | null> {
    await this.closeKv(replica.tableBucket)
    const leaderEpoch = replica.leaderEpoch
    const leads = () => replica.isLeader && replica.leaderEpoch === leaderEpoch
    await replica.schemas.preload()
    const { kv } = await openKvTabletWithRecovery({
      bucketDir: kvTabletDir(this.#dataDir, replica),
      tableBucket: replica.tableBucket,
      options: { ...this.#kvOptions(replica), isLeader: leads },
      snapshotStore: this.#snapshotStore,
      logger: this.#options.logger,
    })
    if (!leads()) {
      await kv.close()
      return null
    }
    const snapshotter = this.#startSnapshotter(replica, kv)
    this.#buckets.set(tableBucketKey(replica.tableBucket), { kv, snapshotter })
    return kv
  }

  /** Stops the bucket's snapshots and closes its KvTablet (its directory stays). */
  closeKv(bucket: TableBucket): Promise<void> {
    return this.#closeKey(tableBucketKey(bucket))
  }

  /** A deleted replica: its RocksDB directory, and with `deleteRemote` its KV snapshots, go. */
  async dropKv(
    replica: Pick<KvReplica, 'tableBucket' | 'physicalTablePath'>,
    deleteLocal: boolean,
    deleteRemote: boolean,
  ): Promise<void> {
    await this.closeKv(replica.tableBucket)
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

  #kvOptions(replica: KvReplica) {
    const { config, metaStore } = this.#options
    const remote = this.#options.remoteChangelog?.(replica.tableBucket) ?? null
    // New ranges for every leadership: whatever a former leader drew is never handed out again.
    const ids = metaStore === undefined ? null : metaStoreAutoIncrementIds(metaStore, replica.tableInfo)
    return {
      ...(ids === null ? {} : { autoIncrementIds: ids }),
      log: withRemoteChangelog(replica.logTablet, remote),
      schemas: replica.schemas,
      tableConfig: replica.tableInfo.tableConfig,
      tableSchemaId: replica.tableInfo.schemaId,
      rocksDb: { ...rocksDbKvOptions(config), rowCache: this.#rowCache },
      recoverBatchBytes: config.get(KV_RECOVER_LOG_RECORD_BATCH_MAX_SIZE),
      maxQueuedOperations: config.get(SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS),
      maxPendingBytes: KV_MAX_PENDING_BYTES,
      name: replica.name,
    }
  }

  #startSnapshotter(replica: KvReplica, kv: KvTablet): KvSnapshotter | null {
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

  async #closeKey(key: string): Promise<void> {
    const entry = this.#buckets.get(key)
    if (entry === undefined) return
    this.#buckets.delete(key)
    await entry.snapshotter?.stop()
    await entry.kv.close()
  }
}
