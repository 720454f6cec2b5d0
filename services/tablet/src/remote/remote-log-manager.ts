import { type BlobStore, remoteLogTabletPrefix } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { isMetaStoreConflict } from '@sluice/core/metastore'
import { MANIFEST_INLINE_BYTES_DEFAULT, RemoteLogManifestStore } from '@sluice/core/remotelog'
import {
  type Clock,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  realSleep,
  SYSTEM_CLOCK,
  withRetry,
} from '@sluice/core/util'
import { deleteKeys, listTabletKeys } from './orphan-sweep.js'
import { RemoteIndexCache } from './remote-index-cache.js'
import { RemoteLogReader } from './remote-log-reader.js'
import { RemoteLogStats, type RemoteLogStatsSnapshot } from './remote-log-stats.js'
import { type RemoteLogRunResult, RemoteLogTask, type RemoteLogTaskSettings } from './remote-log-task.js'
import {
  type RemoteLogLogger,
  type RemoteLogReplica,
  type RemoteLogTableOptions,
  SILENT_REMOTE_LOG_LOGGER,
} from './remote-log-types.js'
import type { RemoteCall } from './segment-uploader.js'

export interface RemoteLogManagerOptions {
  readonly blobStore: BlobStore
  readonly metaStore: MetaStore
  /** `remote.data.dir` as clients reach it (else `sluice.blobstore.uri`): the root of the BlobStore. */
  readonly remoteDataDir: string
  /** `remote.log.task-interval-duration`; 0 disables the remote log (uploads, cleanup, remote reads). */
  readonly taskIntervalMs: number
  /** `remote.log.task-max-upload-segments`. */
  readonly maxUploadSegments: number
  readonly clock?: Clock
  readonly logger?: RemoteLogLogger
  readonly retry?: Partial<RetryPolicy>
  /** Default 1 hour: far above any upload-to-commit time, and clock skew between servers. */
  readonly orphanSafetyWindowMs?: number
  /** Default 1 hour (and once when a bucket task starts). */
  readonly orphanSweepIntervalMs?: number
  /** Default 100,000 keys per sweep. */
  readonly orphanSweepMaxKeys?: number
  /** Default 64 KiB: larger manifest bodies go to the BlobStore. */
  readonly manifestInlineBytesMax?: number
  /** Memory for remote offset indexes; default 64 MiB. */
  readonly indexCacheBytes?: number
  /** Smallest ranged GET of a remote log object; default 256 KiB. */
  readonly readChunkBytes?: number
  /** Injected in tests; defaults: setTimeout and Math.random. */
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
}

interface Registered {
  readonly task: RemoteLogTask
  readonly reader: RemoteLogReader
  timer: NodeJS.Timeout | null
}

const HOUR_MS = 60 * 60 * 1000
/** Bound on list-and-delete rounds of `deleteRemoteLog` (each deletes up to orphanSweepMaxKeys). */
const DELETE_ROUNDS_MAX = 1000
/** Lake tables run at least this often, so tiered data stays within the freshness bound. */
const FRESHNESS_RUNS_PER_PERIOD = 4
const MIN_PERIOD_MS = 1000

/**
 * Time between runs of a bucket's task: the task interval, shortened for lake tables to a quarter
 * of the freshness (at least 1 s), so that a segment sealed at half the freshness is uploaded well
 * within it.
 */
export function runPeriodMs(taskIntervalMs: number, options: RemoteLogTableOptions): number {
  if (!options.datalakeEnabled || options.datalakeFreshnessMs <= 0) return taskIntervalMs
  const lakeMs = Math.max(MIN_PERIOD_MS, Math.floor(options.datalakeFreshnessMs / FRESHNESS_RUNS_PER_PERIOD))
  return Math.min(taskIntervalMs, lakeMs)
}

/**
 * Fluss's `RemoteLogManager`: one RemoteLogTask per bucket replica of this server, each run on its
 * own timer (fixed delay, first run after a random share of the interval), plus the readers that
 * serve fetches below the local log start. Everything here runs in the background on sealed files:
 * appends never wait for it, and a failing BlobStore only delays uploads.
 */
export class RemoteLogManager {
  readonly #options: RemoteLogManagerOptions
  readonly #tasks = new Map<string, Registered>()
  readonly #stats = new RemoteLogStats()
  readonly #manifestStore: RemoteLogManifestStore
  readonly #indexCache: RemoteIndexCache
  readonly #settings: RemoteLogTaskSettings
  readonly #clock: Clock
  #closed = false

  constructor(options: RemoteLogManagerOptions) {
    this.#options = options
    this.#clock = options.clock ?? SYSTEM_CLOCK
    this.#manifestStore = new RemoteLogManifestStore(options.metaStore, options.blobStore, {
      inlineBytesMax: options.manifestInlineBytesMax ?? MANIFEST_INLINE_BYTES_DEFAULT,
      nowMs: () => this.#clock.nowMs(),
    })
    this.#indexCache = new RemoteIndexCache(options.indexCacheBytes ?? 64 * 1024 * 1024)
    this.#settings = {
      maxUploadSegments: options.maxUploadSegments,
      orphanSafetyWindowMs: options.orphanSafetyWindowMs ?? HOUR_MS,
      orphanSweepIntervalMs: options.orphanSweepIntervalMs ?? HOUR_MS,
      orphanSweepMaxKeys: options.orphanSweepMaxKeys ?? 100_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    }
  }

  /** False when `remote.log.task-interval-duration` is 0: nothing is uploaded, deleted or read. */
  get enabled(): boolean {
    return this.#options.taskIntervalMs > 0
  }

  /**
   * Registers a bucket this server now leads (replacing an earlier registration, e.g. of an older
   * leader epoch) and schedules its task. The manifest is loaded right away; the promise resolves
   * once it is (or failed to load, to be retried by the first run). Callers need not wait for it.
   */
  startLeader(replica: RemoteLogReplica): Promise<void> {
    return this.#start(replica, 'leader')?.prepare() ?? Promise.resolve()
  }

  /** Registers a follower replica: its runs only delete local segments already in remote storage. */
  startFollower(replica: RemoteLogReplica): void {
    this.#start(replica, 'follower')
  }

  /** Whether a task for the bucket is registered (as leader or follower). */
  has(tableBucket: TableBucket): boolean {
    return this.#tasks.has(tableBucketKey(tableBucket))
  }

  /**
   * Stops the bucket's task (leadership lost, replica stopped). Resolves when a run in progress has
   * ended; callers need not wait, since a stopped task commits nothing more.
   */
  async stop(tableBucket: TableBucket): Promise<void> {
    const key = tableBucketKey(tableBucket)
    const registered = this.#tasks.get(key)
    if (registered === undefined) return
    this.#tasks.delete(key)
    this.#halt(registered)
    await registered.task.idle()
  }

  /** The reader of a bucket led here (null for followers, unknown buckets, or when disabled). */
  reader(tableBucket: TableBucket): RemoteLogReader | null {
    const registered = this.#tasks.get(tableBucketKey(tableBucket))
    return registered?.task.role === 'leader' ? registered.reader : null
  }

  /** Runs the bucket's task now (tests, operations); undefined when the bucket is not registered. */
  async runOnce(tableBucket: TableBucket): Promise<RemoteLogRunResult | undefined> {
    return this.#tasks.get(tableBucketKey(tableBucket))?.task.run()
  }

  /**
   * Deletes a dropped bucket's remote log (STOP_REPLICA with deleteRemote): stops its task, deletes
   * every object under its tablet prefix, then the manifest item (on the version read). Returns the
   * number of objects deleted. Safe to repeat.
   */
  async deleteRemoteLog(tableBucket: TableBucket): Promise<number> {
    await this.stop(tableBucket)
    const call: RemoteCall = (what, op) =>
      withRetry(
        what,
        this.#settings.retry,
        {
          sleep: this.#options.sleep ?? realSleep,
          random: this.#options.random ?? Math.random,
          isCancelled: () => false,
          onRetry: () => this.#stats.add('retries'),
        },
        op,
      )
    const stored = await call('load remote log manifest', () => this.#manifestStore.load(tableBucket))
    const prefix = remoteLogTabletPrefix(tableBucket)
    let deleted = 0
    for (let round = 0; ; round++) {
      const keys = await listTabletKeys(
        this.#options.blobStore,
        prefix,
        this.#settings.orphanSweepMaxKeys,
        call,
      )
      if (keys.length === 0) break
      if (round >= DELETE_ROUNDS_MAX) {
        throw new FlussError(
          'STORAGE_EXCEPTION',
          `objects under ${prefix} remain after ${round} delete rounds`,
        )
      }
      deleted += await deleteKeys(this.#options.blobStore, keys, call)
    }
    this.#stats.add('objectsDeleted', deleted)
    await call('delete remote log manifest', () => this.#manifestStore.deleteItem(tableBucket, stored)).catch(
      e => {
        if (!isMetaStoreConflict(e)) throw e
      },
    )
    return deleted
  }

  stats(): RemoteLogStatsSnapshot & { readonly buckets: number; readonly indexCacheBytes: number } {
    return {
      ...this.#stats.snapshot(),
      buckets: this.#tasks.size,
      indexCacheBytes: this.#indexCache.sizeInBytes,
    }
  }

  /** Stops every task and waits for runs in progress. The stores are the caller's to close. */
  async close(): Promise<void> {
    this.#closed = true
    const all = [...this.#tasks.values()]
    this.#tasks.clear()
    for (const registered of all) this.#halt(registered)
    await Promise.all(all.map(r => r.task.idle()))
  }

  #start(replica: RemoteLogReplica, role: 'leader' | 'follower'): RemoteLogTask | null {
    if (!this.enabled || this.#closed) return null
    const key = tableBucketKey(replica.tableBucket)
    const previous = this.#tasks.get(key)
    if (previous !== undefined) this.#halt(previous)
    const task = new RemoteLogTask(replica, role, {
      blobStore: this.#options.blobStore,
      manifestStore: this.#manifestStore,
      stats: this.#stats,
      logger: this.#options.logger ?? SILENT_REMOTE_LOG_LOGGER,
      clock: this.#clock,
      sleep: this.#options.sleep ?? realSleep,
      random: this.#options.random ?? Math.random,
      settings: this.#settings,
    })
    const reader = new RemoteLogReader(replica.tableBucket, replica.physicalTablePath, () => task.manifest, {
      blobStore: this.#options.blobStore,
      indexCache: this.#indexCache,
      stats: this.#stats,
      remoteDataDir: this.#options.remoteDataDir,
      readChunkBytes: this.#options.readChunkBytes ?? 256 * 1024,
      operationTimeoutMs: this.#settings.retry.operationTimeoutMs,
    })
    const registered: Registered = { task, reader, timer: null }
    this.#tasks.set(key, registered)
    const random = this.#options.random ?? Math.random
    this.#schedule(
      registered,
      Math.floor(random() * runPeriodMs(this.#options.taskIntervalMs, replica.tableOptions())),
    )
    return task
  }

  #schedule(registered: Registered, delayMs: number): void {
    const { task } = registered
    registered.timer = setTimeout(() => {
      registered.timer = null
      void task.run().then(() => {
        if (!task.isCancelled && this.#tasks.get(tableBucketKey(task.replica.tableBucket)) === registered) {
          this.#schedule(registered, runPeriodMs(this.#options.taskIntervalMs, task.replica.tableOptions()))
        }
      })
    }, delayMs)
    registered.timer.unref()
  }

  #halt(registered: Registered): void {
    registered.task.cancel()
    if (registered.timer !== null) clearTimeout(registered.timer)
    registered.timer = null
    const manifest = registered.task.manifest
    if (manifest !== null) this.#indexCache.evict(manifest.segments.map(s => s.segmentId))
  }
}
