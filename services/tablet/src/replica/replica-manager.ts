import type { Configuration } from '@sluice/core/config'
import {
  LOG_INDEX_FILE_SIZE,
  LOG_INDEX_INTERVAL_SIZE,
  LOG_REPLICA_FETCH_BACKOFF_INTERVAL,
  LOG_REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL,
  LOG_REPLICA_MAX_LAG_TIME,
  LOG_REPLICA_MIN_IN_SYNC_REPLICAS_NUMBER,
  LOG_SEGMENT_FILE_SIZE,
  SERVER_WRITER_ID_EXPIRATION_TIME,
  SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS,
  SLUICE_TABLET_SERVER_MAX_DELAYED_OPERATIONS,
} from '@sluice/core/config'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey, tableBucketToString } from '@sluice/core/metadata'
import { type Clock, SerialExecutor } from '@sluice/core/util'
import type { ControlPlane } from '../control-plane/control-plane.js'
import type { ForwardedLookup, KeyForwarder, KvManager } from '../kv/index.js'
import { LogTablet, type LogTabletOptions } from '../log/index.js'
import { appendRecordsToLog, type ProduceEntry } from './append-to-log.js'
import type { DelayedFetchLog } from './delay/delayed-fetch-log.js'
import { DelayedOperationManager } from './delay/delayed-operation-manager.js'
import type { DelayedWrite, WriteResultForBucket } from './delay/delayed-write.js'
import { fetchLogRecords } from './fetch-log-records.js'
import type { FetchLogResultForBucket, FetchParams, FetchReqInfo } from './fetch-types.js'
import type { ReplicaFetcherManager } from './fetcher/replica-fetcher-manager.js'
import { type KeysOfBucket, type LimitScanResult, limitScan, lookups, prefixLookups } from './kv-reads.js'
import { LeaderEpochCache } from './leader-epoch-cache.js'
import { type KvEntry, type PutKvParams, putRecordsToKv } from './put-to-kv.js'
import type { RemoteFetchSource } from './read-from-log.js'
import { Replica } from './replica.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'
import { logTabletDir, removeEmptyParentDirs } from './replica-paths.js'
import { becomeLeaderOrFollower, stopReplicas } from './replica-state-changes.js'
import {
  type BucketResult,
  type IsrWriter,
  type ListOffsetsParam,
  type NotifyLeaderAndIsrData,
  OffsetType,
  type StopReplicaData,
} from './replica-types.js'
import { SchemaCache } from './schema-cache.js'
import type { TabletMetadataCache } from './tablet-metadata-cache.js'

export interface ReplicaManagerOptions {
  readonly serverId: number
  readonly dataDir: string
  readonly config: Configuration
  readonly controlPlane: ControlPlane
  readonly clock: Clock
  readonly metadataCache: TabletMetadataCache
  /** Builds the follower fetchers; it may call back into this manager for replicas. */
  readonly createFetcherManager: (manager: ReplicaManager) => ReplicaFetcherManager
  /** Writes leaders' ISR changes; default: through `controlPlane.adjustIsr`. */
  readonly isrWriter?: IsrWriter
  /** Plug-ins to every replica's leadership (the remote log). */
  readonly hooks?: ReplicaHooks
  /** Opens and closes the KvTablets of the primary-key buckets led here. */
  readonly kvManager?: KvManager
  /** The remote log of a bucket led here (fetches below the local log start, earliest offsets). */
  readonly remoteLogReader?: (bucket: TableBucket) => RemoteFetchSource | null
  readonly warn?: ReplicaWarn
}

/**
 * The replicas hosted on this tablet server, keyed by bucket (Fluss's `ReplicaManager`): creates
 * them on NOTIFY_LEADER_AND_ISR, makes them leaders or followers, stops them, and routes produce,
 * put, fetch, lookup, limit-scan and list-offsets requests to them. Acks=all writes and long-poll
 * fetches wait in the delayed-operation managers, woken whenever a bucket's log or high watermark
 * moves.
 */
export class ReplicaManager {
  readonly serverId: number
  readonly controlPlane: ControlPlane
  readonly metadataCache: TabletMetadataCache
  /** The schemas of the hosted tables (produce validation, projection, KV tablets). */
  readonly schemas: SchemaCache
  readonly delayedWrites: DelayedOperationManager<DelayedWrite>
  readonly delayedFetches: DelayedOperationManager<DelayedFetchLog>
  readonly fetcherManager: ReplicaFetcherManager
  /** Serializes leadership changes and replica stops (Fluss's `replicaStateChangeLock`). */
  readonly stateChanges: SerialExecutor
  readonly #options: ReplicaManagerOptions
  readonly #replicas = new Map<string, Replica>()
  #coordinatorEpoch = 0
  #isrExpiration: NodeJS.Timeout | undefined

  constructor(options: ReplicaManagerOptions) {
    this.#options = options
    this.serverId = options.serverId
    this.controlPlane = options.controlPlane
    this.metadataCache = options.metadataCache
    this.schemas = new SchemaCache(options.controlPlane)
    const maxDelayed = options.config.get(SLUICE_TABLET_SERVER_MAX_DELAYED_OPERATIONS)
    this.delayedWrites = new DelayedOperationManager('delayed writes', maxDelayed)
    this.delayedFetches = new DelayedOperationManager('delayed fetches', maxDelayed)
    this.stateChanges = new SerialExecutor(maxDelayed, 'replica state changes')
    this.fetcherManager = options.createFetcherManager(this)
  }

  /**
   * Starts the ISR expiration check: every half `log.replica.max-lag-time` each leader drops the
   * followers that fell out of sync (a follower may lag up to 1.5 times the lag time, as in Fluss).
   */
  startup(): void {
    if (this.#isrExpiration !== undefined) return
    const intervalMs = Math.max(1, Math.floor(this.#options.config.get(LOG_REPLICA_MAX_LAG_TIME) / 2))
    this.#isrExpiration = setInterval(() => this.maybeShrinkIsr(), intervalMs)
    this.#isrExpiration.unref()
  }

  /** One ISR expiration check over every hosted replica. */
  maybeShrinkIsr(): void {
    for (const replica of this.#replicas.values()) {
      try {
        replica.maybeShrinkIsr()
      } catch (e) {
        this.#options.warn?.(`ISR check of ${replica.name} failed`, e, replica.logFields)
      }
    }
  }

  get hooks(): ReplicaHooks | undefined {
    return this.#options.hooks
  }

  /** The remote log of a bucket led here, if it has one. */
  remoteLogReader(bucket: TableBucket): RemoteFetchSource | null {
    return this.#options.remoteLogReader?.(bucket) ?? null
  }

  get coordinatorEpoch(): number {
    return this.#coordinatorEpoch
  }

  get replicaCount(): number {
    return this.#replicas.size
  }

  /** The hosted replica of a bucket, if any. */
  getReplica(bucket: TableBucket): Replica | undefined {
    return this.#replicas.get(tableBucketKey(bucket))
  }

  /** Every hosted replica. */
  replicas(): Replica[] {
    return [...this.#replicas.values()]
  }

  /**
   * The hosted replica, else NOT_LEADER_OR_FOLLOWER for a bucket that exists elsewhere (the client
   * refreshes its metadata), else UNKNOWN_TABLE_OR_BUCKET_EXCEPTION.
   */
  getReplicaOrException(bucket: TableBucket): Replica {
    const replica = this.#replicas.get(tableBucketKey(bucket))
    if (replica !== undefined) return replica
    if (this.metadataCache.contains(bucket)) {
      throw new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `server ${this.serverId} is not leader or follower for ${tableBucketToString(bucket)}`,
      )
    }
    throw new FlussError(
      'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION',
      `Unknown table or bucket: ${tableBucketToString(bucket)}`,
    )
  }

  /**
   * Refuses a control request from a coordinator older than the newest one seen
   * (INVALID_COORDINATOR_EXCEPTION for the whole request); a newer epoch becomes the newest.
   */
  validateAndApplyCoordinatorEpoch(requestEpoch: number, requestName: string): void {
    if (requestEpoch < this.#coordinatorEpoch) {
      throw new FlussError(
        'INVALID_COORDINATOR_EXCEPTION',
        `invalid coordinator epoch ${requestEpoch} in ${requestName} request, the latest known ` +
          `coordinator epoch is ${this.#coordinatorEpoch}`,
      )
    }
    this.#coordinatorEpoch = requestEpoch
  }

  becomeLeaderOrFollower(
    coordinatorEpoch: number,
    data: readonly NotifyLeaderAndIsrData[],
  ): Promise<BucketResult[]> {
    return this.stateChanges.run(() => becomeLeaderOrFollower(this, coordinatorEpoch, data))
  }

  stopReplicas(coordinatorEpoch: number, data: readonly StopReplicaData[]): Promise<BucketResult[]> {
    return this.stateChanges.run(() => stopReplicas(this, coordinatorEpoch, data))
  }

  appendRecordsToLog(
    timeoutMs: number,
    requiredAcks: number,
    entries: readonly ProduceEntry[],
  ): Promise<WriteResultForBucket[]> {
    return appendRecordsToLog(this, timeoutMs, requiredAcks, entries)
  }

  fetchLogRecords(
    params: FetchParams,
    reqs: readonly FetchReqInfo[],
    signal?: AbortSignal,
  ): Promise<FetchLogResultForBucket[]> {
    return fetchLogRecords(this, params, reqs, signal)
  }

  /** PUT_KV (see `putRecordsToKv`); keys of other buckets go there through `forwarder`. */
  putRecordsToKv(
    params: PutKvParams,
    entries: readonly KvEntry[],
    forwarder?: KeyForwarder,
  ): Promise<WriteResultForBucket[]> {
    return putRecordsToKv(this, params, entries, forwarder)
  }

  /** LOOKUP (see `lookups`). */
  lookups(
    params: ForwardedLookup,
    buckets: readonly KeysOfBucket[],
    forwarder?: KeyForwarder,
  ): Promise<BucketResult<(Buffer | null)[]>[]> {
    return lookups(this, params, buckets, forwarder)
  }

  /** PREFIX_LOOKUP (see `prefixLookups`). */
  prefixLookups(
    buckets: readonly KeysOfBucket[],
    forwarder?: KeyForwarder,
  ): Promise<BucketResult<Buffer[][]>[]> {
    return prefixLookups(this, buckets, forwarder)
  }

  /** LIMIT_SCAN of one bucket (see `limitScan`). */
  limitScan(bucket: TableBucket, limit: number, maxBytes: number): Promise<LimitScanResult> {
    return limitScan(this, bucket, limit, maxBytes)
  }

  /** LIST_OFFSETS; a client's EARLIEST includes the bucket's remote log. */
  async listOffsets(
    param: ListOffsetsParam,
    buckets: readonly TableBucket[],
  ): Promise<BucketResult<number>[]> {
    const clientEarliest = param.offsetType === OffsetType.EARLIEST && param.followerServerId < 0
    return Promise.all(
      buckets.map(async tableBucket => {
        try {
          const offset = await this.getReplicaOrException(tableBucket).getOffset(param)
          const remote = clientEarliest ? this.remoteLogReader(tableBucket) : null
          return { tableBucket, value: remote === null ? offset : remote.earliestOffset(offset) }
        } catch (e) {
          return { tableBucket, error: toFlussError(e) }
        }
      }),
    )
  }

  getTableStats(buckets: readonly TableBucket[]): BucketResult<number>[] {
    return buckets.map(tableBucket => {
      try {
        return { tableBucket, value: this.getReplicaOrException(tableBucket).rowCount }
      } catch (e) {
        return { tableBucket, error: toFlussError(e) }
      }
    })
  }

  /** Opens the bucket's log under `data.dir` and hosts a replica for it (not yet leader or follower). */
  async createReplica(data: NotifyLeaderAndIsrData): Promise<Replica> {
    const existing = this.getReplica(data.tableBucket)
    if (existing !== undefined) return existing
    const tableInfo = await this.controlPlane.getTableInfo(data.tableBucket.tableId)
    const dir = logTabletDir(this.#options.dataDir, data.physicalTablePath, data.tableBucket)
    const logTablet = await LogTablet.open(dir, this.#logTabletOptions(tableBucketToString(data.tableBucket)))
    const epochCache = await LeaderEpochCache.load(dir).catch(async e => {
      await logTablet.close().catch(() => undefined)
      throw e
    })
    // Entries past the log end (the log lost its tail in a crash) describe nothing.
    epochCache.truncateFromEnd(logTablet.logEndOffset + 1)
    const { config, clock, hooks, kvManager, warn } = this.#options
    const replica = new Replica({
      schemas: this.schemas.forTable(tableInfo),
      localServerId: this.serverId,
      tableBucket: data.tableBucket,
      physicalTablePath: data.physicalTablePath,
      tableInfo,
      logTablet,
      epochCache,
      minInSyncReplicas: config.get(LOG_REPLICA_MIN_IN_SYNC_REPLICAS_NUMBER),
      maxLagMs: config.get(LOG_REPLICA_MAX_LAG_TIME),
      isrWriter: this.#options.isrWriter ?? this.controlPlane,
      isrRetryBackoffMs: config.get(LOG_REPLICA_FETCH_BACKOFF_INTERVAL),
      clock,
      ...(hooks === undefined ? {} : { hooks }),
      ...(kvManager === undefined ? {} : { kvManager }),
      ...(warn === undefined ? {} : { warn }),
      onChanged: bucket => this.completeDelayedOperations(bucket),
    })
    this.#replicas.set(tableBucketKey(data.tableBucket), replica)
    const { tableId, partitionId } = data.tableBucket
    if (partitionId === undefined) this.metadataCache.addTable(tableId, tableInfo.numBuckets)
    else this.metadataCache.addPartition(tableId, partitionId, tableInfo.numBuckets)
    return replica
  }

  /** Stops hosting a replica; its log is closed, or deleted with `deleteLocal`. */
  async removeReplica(replica: Replica, deleteLocal: boolean): Promise<void> {
    this.#replicas.delete(tableBucketKey(replica.tableBucket))
    const { tableId } = replica.tableBucket
    if (![...this.#replicas.values()].some(r => r.tableBucket.tableId === tableId)) {
      this.schemas.removeTable(tableId)
    }
    // Leadership hooks (and the epoch cache write) still running must not race the directory.
    await replica.whenHooksSettled()
    await replica.runFollowerTask(async () => undefined)
    if (deleteLocal) {
      await replica.logTablet.drop()
      await removeEmptyParentDirs(this.#options.dataDir, replica.physicalTablePath, replica.tableBucket)
    } else await replica.logTablet.close()
    this.completeDelayedOperations(replica.tableBucket)
  }

  /** Re-checks the writes and fetches waiting on a bucket. */
  completeDelayedOperations(bucket: TableBucket): void {
    const key = tableBucketKey(bucket)
    this.delayedWrites.checkAndComplete(key)
    this.delayedFetches.checkAndComplete(key)
  }

  /**
   * Graceful stop: fetchers stop, waiting requests are answered, every log is closed (which writes
   * its high-watermark checkpoint and writer snapshot).
   */
  async shutdown(): Promise<void> {
    clearInterval(this.#isrExpiration)
    this.#isrExpiration = undefined
    await this.fetcherManager.shutdown()
    await this.stateChanges.run(async () => {
      for (const replica of this.#replicas.values()) replica.resign()
      for (const replica of this.#replicas.values()) await replica.whenHooksSettled()
      this.delayedWrites.completeAll()
      this.delayedFetches.completeAll()
      const errors: unknown[] = []
      for (const replica of this.#replicas.values()) {
        await replica.logTablet.close().catch(e => errors.push(e))
      }
      this.#replicas.clear()
      if (errors.length > 0) throw toFlussError(errors[0])
    }, true)
  }

  #logTabletOptions(name: string): LogTabletOptions {
    const { config, clock } = this.#options
    return {
      segmentBytes: config.get(LOG_SEGMENT_FILE_SIZE),
      indexIntervalBytes: config.get(LOG_INDEX_INTERVAL_SIZE),
      indexBytes: config.get(LOG_INDEX_FILE_SIZE),
      writerExpirationMs: config.get(SERVER_WRITER_ID_EXPIRATION_TIME),
      highWatermarkCheckpointIntervalMs: config.get(LOG_REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL),
      maxQueuedOperations: config.get(SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS),
      clock,
      name,
    }
  }
}
