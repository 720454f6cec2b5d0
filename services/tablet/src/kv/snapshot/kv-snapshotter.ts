import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { kvSnapshotTabletPrefix } from '@sluice/core/blobstore'
import { FlussError, toFlussError } from '@sluice/core/errors'
import { type Clock, DEFAULT_RETRY_POLICY, realSleep, SYSTEM_CLOCK, withTimeout } from '@sluice/core/util'
import type { KvMeta } from '../kv-meta.js'
import { SharedFileIndex } from './kv-snapshot-files.js'
import { KvSnapshotLedger } from './kv-snapshot-ledger.js'
import { KvSnapshotRegistry } from './kv-snapshot-registry.js'
import {
  emptyKvSnapshotStats,
  type KvSnapshotLogger,
  type KvSnapshotStats,
  SILENT_KV_SNAPSHOT_LOGGER,
} from './kv-snapshot-stats.js'
import { sweepKvSnapshotOrphans } from './kv-snapshot-sweep.js'
import { type TransferContext, uploadCheckpoint } from './kv-snapshot-transfer.js'
import type { KvSnapshot } from './kv-snapshot-types.js'
import {
  type KvSnapshotRunResult,
  type KvSnapshotterOptions,
  TIMER_SCHEDULER,
} from './kv-snapshotter-options.js'
import { checkpointRocksDb, type RocksDbCheckpoint } from './rocksdb-checkpoint.js'
import { retryingCall, type SnapshotCall } from './snapshot-retry.js'

const HOUR_MS = 60 * 60 * 1000

/**
 * Periodic incremental snapshots of one primary-key bucket on its leader (Fluss's
 * `PeriodicSnapshotManager` + `KvTabletSnapshotTarget`). A run:
 *   1. takes a checkpoint while the KvTablet's flushes are paused (flush to the high watermark,
 *      memtable flush, hard links and copies: milliseconds); puts and lookups go on;
 *   2. uploads it in the background: SST files already in a committed snapshot are referred to,
 *      new ones uploaded (retried with backoff);
 *   3. commits it in the registry (item on absence, head fenced by leader epoch), then deletes the
 *      snapshots beyond `numRetained` and files no retained snapshot lists.
 * A failing BlobStore or MetaStore only fails the run (retried at the next interval); puts and
 * lookups never wait for either. Runs never overlap.
 */
export class KvSnapshotter {
  readonly #options: KvSnapshotterOptions
  readonly #stats = emptyKvSnapshotStats()
  readonly #ledger: KvSnapshotLedger
  readonly #index = new SharedFileIndex()
  readonly #transfer: TransferContext
  readonly #clock: Clock
  readonly #logger: KvSnapshotLogger
  readonly #prefix: string
  readonly #registry: KvSnapshotRegistry
  readonly #call: SnapshotCall
  #running: Promise<KvSnapshotRunResult> | null = null
  #timer: { cancel(): void } | null = null
  #cancelled = false
  #lastSweepMs = Number.NEGATIVE_INFINITY
  #checkpointsCleared = false

  constructor(options: KvSnapshotterOptions) {
    this.#options = options
    this.#clock = options.clock ?? SYSTEM_CLOCK
    this.#logger = options.logger ?? SILENT_KV_SNAPSHOT_LOGGER
    this.#prefix = kvSnapshotTabletPrefix(options.tableBucket)
    const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry }
    const call = retryingCall(options.kv.name, policy, {
      sleep: options.sleep ?? realSleep,
      random: options.random ?? Math.random,
      isCancelled: () => this.#cancelled,
      onRetry: (what, attempt, error) => {
        this.#stats.retries++
        this.#logger.warn('kv snapshot call failed, retrying', {
          bucket: this.name,
          what,
          attempt,
          error: error.message,
        })
      },
    })
    this.#call = call
    this.#registry = new KvSnapshotRegistry(options.metaStore)
    const callOnce: SnapshotCall = (what, op) => withTimeout(what, policy.operationTimeoutMs, op)
    this.#transfer = {
      blobStore: options.blobStore,
      call,
      concurrency: options.transferConcurrency ?? 4,
      nowMs: () => this.#clock.nowMs(),
    }
    this.#ledger = new KvSnapshotLedger({
      tableBucket: options.tableBucket,
      leaderEpoch: options.leaderEpoch,
      numRetained: options.numRetained,
      tabletPrefix: this.#prefix,
      registry: this.#registry,
      blobStore: options.blobStore,
      call,
      callOnce,
      stats: this.#stats,
      logger: this.#logger,
      name: options.kv.name,
      onFenced: error => {
        this.#cancelled = true
        options.onFenced?.(error)
      },
    })
  }

  get name(): string {
    return this.#options.kv.name
  }

  /** The newest snapshot committed or loaded by this snapshotter; null before the first run. */
  get latest(): KvSnapshot | null {
    return this.#ledger.latest
  }

  stats(): Readonly<KvSnapshotStats> {
    return { ...this.#stats }
  }

  /** Schedules runs every `intervalMs`, the first after a random share of it (spreads buckets). */
  start(): void {
    if (this.#cancelled || this.#timer !== null) return
    const random = this.#options.random ?? Math.random
    this.#schedule(Math.floor(random() * this.#options.intervalMs))
  }

  /** Stops scheduling; a run in progress gives up at its next call and commits nothing more. */
  async stop(): Promise<void> {
    this.#cancelled = true
    this.#timer?.cancel()
    this.#timer = null
    await this.#running?.catch(() => {})
  }

  /** One run now (joins a run in progress). Never throws. */
  snapshotNow(): Promise<KvSnapshotRunResult> {
    this.#running ??= this.#runGuarded().finally(() => {
      this.#running = null
    })
    return this.#running
  }

  #schedule(delayMs: number): void {
    const scheduler = this.#options.scheduler ?? TIMER_SCHEDULER
    this.#timer = scheduler.schedule(() => {
      this.#timer = null
      void this.snapshotNow().then(() => {
        if (!this.#cancelled && this.#timer === null) this.#schedule(this.#options.intervalMs)
      })
    }, delayMs)
  }

  async #runGuarded(): Promise<KvSnapshotRunResult> {
    if (this.#cancelled || this.#options.kv.isClosed) return { status: 'skipped' }
    try {
      return await this.#run()
    } catch (e) {
      const error = toFlussError(e)
      this.#stats.lastError = error.message
      if (this.#ledger.isFenced) return { status: 'fenced', error }
      this.#stats.failures++
      this.#logger.warn('kv snapshot failed', { bucket: this.name, error: error.message })
      return { status: 'failed', error }
    }
  }

  async #run(): Promise<KvSnapshotRunResult> {
    const startMs = this.#clock.nowMs()
    await this.#ledger.ensureClaimed()
    await this.#maybeSweep()
    if (!this.#hasNewData(this.#options.kv.flushedOffset)) return this.#skipped()
    const snapshotId = this.#ledger.nextSnapshotId
    if (!this.#checkpointsCleared) {
      // Checkpoints left behind by a crash of an earlier run.
      await rm(this.#options.checkpointDir, { recursive: true, force: true })
      this.#checkpointsCleared = true
    }
    const dir = join(this.#options.checkpointDir, String(snapshotId))
    try {
      const { checkpoint, meta } = await this.#checkpoint(dir)
      if (!this.#hasNewData(meta.flushedOffset)) return this.#skipped()
      const snapshot = await this.#uploadAndCommit(snapshotId, checkpoint, meta)
      this.#stats.committed++
      this.#stats.lastSnapshotId = snapshot.snapshotId
      this.#stats.lastLogOffset = snapshot.logOffset
      this.#stats.lastSnapshotAtMs = snapshot.createdAtMs
      this.#stats.lastDurationMs = this.#clock.nowMs() - startMs
      this.#logger.info('kv snapshot committed', {
        bucket: this.name,
        snapshotId,
        logOffset: snapshot.logOffset,
      })
      return { status: 'committed', snapshot }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  #hasNewData(flushedOffset: number): boolean {
    const latest = this.#ledger.latest
    return flushedOffset > 0 && (latest === null || flushedOffset > latest.logOffset)
  }

  #skipped(): KvSnapshotRunResult {
    this.#stats.skipped++
    return { status: 'skipped' }
  }

  async #checkpoint(dir: string): Promise<{ checkpoint: RocksDbCheckpoint; meta: KvMeta }> {
    return this.#options.kv.withFlushesPaused(async ({ meta, rocks }) => {
      const pausedAt = performance.now()
      const checkpoint = await checkpointRocksDb(rocks, dir)
      this.#stats.lastPauseMs = performance.now() - pausedAt
      return { checkpoint, meta }
    })
  }

  async #uploadAndCommit(
    snapshotId: number,
    checkpoint: RocksDbCheckpoint,
    meta: KvMeta,
  ): Promise<KvSnapshot> {
    const written: string[] = []
    const discard = () => this.#ledger.discardKeys(written)
    let uploaded: Awaited<ReturnType<typeof uploadCheckpoint>>
    try {
      uploaded = await uploadCheckpoint(this.#transfer, {
        tabletPrefix: this.#prefix,
        snapshotId,
        checkpoint,
        committed: this.#ledger.committedFiles(),
        index: this.#index,
        onUploaded: key => written.push(key),
      })
    } catch (e) {
      await discard()
      throw e
    }
    this.#stats.filesUploaded += uploaded.uploadedKeys.length
    this.#stats.bytesUploaded += uploaded.uploadedBytes
    this.#stats.bytesReused += uploaded.reusedBytes
    const snapshot: KvSnapshot = {
      snapshotId,
      logOffset: meta.flushedOffset,
      rowCount: meta.rowCount,
      leaderEpoch: this.#options.leaderEpoch,
      createdAtMs: this.#clock.nowMs(),
      files: uploaded.files,
    }
    if (this.#cancelled) {
      await discard()
      throw new FlussError('NOT_LEADER_OR_FOLLOWER', `the KV snapshots of ${this.name} were stopped`)
    }
    await this.#ledger.commit(snapshot, discard)
    this.#index.retainOnly(new Set(this.#ledger.committedFiles().map(f => f.key)))
    return snapshot
  }

  async #maybeSweep(): Promise<void> {
    const nowMs = this.#clock.nowMs()
    const intervalMs = this.#options.orphanSweepIntervalMs ?? HOUR_MS
    if (nowMs - this.#lastSweepMs < intervalMs) return
    this.#lastSweepMs = nowMs
    const sweep = {
      tableBucket: this.#options.tableBucket,
      tabletPrefix: this.#prefix,
      registry: this.#registry,
      blobStore: this.#options.blobStore,
      call: this.#call,
    }
    const safetyWindowMs = this.#options.orphanSafetyWindowMs ?? HOUR_MS
    const deleted = await sweepKvSnapshotOrphans(
      sweep,
      nowMs,
      safetyWindowMs,
      this.#options.orphanSweepMaxKeys ?? 100_000,
    ).catch(e => {
      this.#stats.deleteErrors++
      this.#logger.warn('kv snapshot orphan sweep failed', {
        bucket: this.name,
        error: toFlussError(e).message,
      })
      return 0
    })
    this.#stats.orphansDeleted += deleted
    if (deleted > 0)
      this.#logger.info('deleted orphaned kv snapshot files', { bucket: this.name, count: deleted })
  }
}
