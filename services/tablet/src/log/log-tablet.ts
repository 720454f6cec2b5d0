import { join } from 'node:path'
import { assert, FlussError } from '@sluice/core/errors'
import type { LogRecordBatch } from '@sluice/core/record'
import { SerialExecutor } from '@sluice/core/util'
import { storageError, writeFileAtomic } from './file-io.js'
import { HighWatermarkCheckpoint } from './high-watermark-checkpoint.js'
import type { LocalLog } from './local-log.js'
import {
  assignOffsetsAndTimestamp,
  checkFollowerBatches,
  placementsOf,
  type ValidatedRecords,
  validateRecords,
} from './log-append.js'
import { type LoadedLog, loadLog, type ResolvedLogTabletOptions, resolveOptions } from './log-loader.js'
import { LogMaintenance } from './log-maintenance.js'
import { CLEAN_SHUTDOWN_FILE } from './log-paths.js'
import type {
  LogAppendInfo,
  LogReadParams,
  LogReadResult,
  LogTabletOptions,
  SealedSegment,
} from './log-tablet-types.js'
import { ReadWriteLock } from './read-write-lock.js'
import type { WriterStateEntry } from './writer-state-entry.js'
import type { WriterStateManager } from './writer-state-manager.js'

/**
 * The log of one bucket replica (Fluss's `LogTablet`): segment files, offset assignment, commit
 * timestamps, idempotent-writer checks, the high watermark, retention and recovery.
 *
 * Mutations (appends, rolls, truncation, retention, close) run one at a time on the bucket's own
 * SerialExecutor, so callers may invoke them concurrently. Reads run concurrently with appends and
 * wait only for operations that remove bytes (truncation, segment deletion, close).
 *
 * acks=1 semantics: an append is acknowledged once written to the page cache; segments are fsynced
 * when they roll, on `flush()` and on close.
 */
export class LogTablet {
  readonly #options: ResolvedLogTabletOptions
  readonly #log: LocalLog
  readonly #writers: WriterStateManager
  readonly #executor: SerialExecutor
  readonly #lock: ReadWriteLock
  readonly #checkpoint: HighWatermarkCheckpoint
  readonly #maintenance: LogMaintenance
  #highWatermark: number
  #closed = false
  /** The last failure of a background high-watermark checkpoint, for monitoring. */
  lastBackgroundError: Error | null = null
  /** Bytes cut from a torn or corrupt tail when the log was opened. */
  readonly truncatedBytesOnOpen: number
  readonly openedAfterCleanShutdown: boolean

  private constructor(
    readonly dir: string,
    options: ResolvedLogTabletOptions,
    loaded: LoadedLog,
  ) {
    this.#options = options
    this.#log = loaded.localLog
    this.#writers = loaded.writers
    this.#highWatermark = loaded.highWatermark
    this.truncatedBytesOnOpen = loaded.truncatedBytes
    this.openedAfterCleanShutdown = loaded.cleanShutdown
    this.#executor = new SerialExecutor(options.maxQueuedOperations, `log ${options.name}`)
    this.#lock = new ReadWriteLock(options.maxQueuedOperations)
    this.#checkpoint = new HighWatermarkCheckpoint(options.io, dir)
    this.#maintenance = new LogMaintenance(this.#log, this.#writers, options.clock)
  }

  /** Opens (creating if needed) and recovers the log in `dir`. */
  static async open(dir: string, options: LogTabletOptions): Promise<LogTablet> {
    const resolved = resolveOptions(dir, options)
    const tablet = new LogTablet(dir, resolved, await loadLog(dir, resolved))
    tablet.#startCheckpointTimer()
    return tablet
  }

  get name(): string {
    return this.#options.name
  }
  get logStartOffset(): number {
    return this.#log.logStartOffset
  }
  get logEndOffset(): number {
    return this.#log.logEndOffset
  }
  get highWatermark(): number {
    return this.#highWatermark
  }
  /** Greatest commit timestamp in the local log, -1 when empty. */
  get localMaxTimestamp(): number {
    return this.#log.localMaxTimestamp
  }
  get segmentCount(): number {
    return this.#log.segments.length
  }
  /** Bytes of the local segments. */
  get sizeInBytes(): number {
    let total = 0
    for (const segment of this.#log.segments) total += segment.sizeInBytes
    return total
  }
  get isClosed(): boolean {
    return this.#closed
  }
  writerState(writerId: number): WriterStateEntry | undefined {
    return this.#writers.lastEntry(writerId)
  }
  get writerCount(): number {
    return this.#writers.writerCount
  }

  /**
   * Validates the request's batches (all or nothing), assigns offsets from the log end offset and a
   * commit timestamp of max(previous max, now), checks writer sequences, then appends. A retried
   * batch of an idempotent writer returns its original offsets with `duplicate: true`. The buffer is
   * patched in place (offsets, timestamps) and written as is.
   */
  async appendAsLeader(records: Uint8Array | ValidatedRecords): Promise<LogAppendInfo> {
    const validated = records instanceof Uint8Array ? this.validate(records) : records
    return this.#mutate('append', () => this.#appendAsLeader(validated))
  }

  /**
   * Parses and validates a request's batches for this log (framing, magic, CRC, counts; all or
   * nothing; RECORD_TOO_LARGE_EXCEPTION beyond a segment). The result can be checked further and
   * then appended as it is, without being parsed again.
   */
  validate(records: Uint8Array): ValidatedRecords {
    return validateRecords(records, this.#options.segmentBytes, this.name)
  }

  /** Appends batches fetched from the leader: offsets and timestamps kept, continuity checked. */
  async appendAsFollower(records: Uint8Array): Promise<LogAppendInfo> {
    const validated = this.validate(records)
    return this.#mutate('follower append', () => this.#appendAsFollower(validated))
  }

  /**
   * Reads whole batches from the one holding `fetchOffset`. `fetchOffset` must lie in [log start,
   * log end]; with HIGH_WATERMARK isolation nothing at or above the high watermark is returned.
   */
  read(params: LogReadParams): Promise<LogReadResult> {
    const { fetchOffset, maxBytes } = params
    if (!Number.isSafeInteger(fetchOffset) || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      return Promise.reject(
        new FlussError('INVALID_REQUEST', `bad read: offset ${fetchOffset}, max bytes ${maxBytes}`),
      )
    }
    return this.#lock.shared(async () => {
      this.#ensureOpen()
      const logStartOffset = this.#log.logStartOffset
      const logEndOffset = this.#log.logEndOffset
      const highWatermark = this.#highWatermark
      if (fetchOffset < logStartOffset || fetchOffset > logEndOffset) {
        throw new FlussError(
          'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
          `Received request for offset ${fetchOffset} for table bucket ${this.name}, ` +
            `but we only have log segments from offset ${logStartOffset} up to ${logEndOffset}.`,
        )
      }
      const maxOffset = params.isolation === 'HIGH_WATERMARK' ? highWatermark : logEndOffset
      try {
        const records = await this.#log.read(fetchOffset, maxBytes, maxOffset, params.minOneMessage)
        return { records, highWatermark, logStartOffset, logEndOffset }
      } catch (e) {
        throw storageError(e, `reading ${this.name} at offset ${fetchOffset}`)
      }
    })
  }

  /**
   * Sets the high watermark (the replica layer decides it), clamped to [log start, log end].
   * Returns the value set. Persisted by the checkpoint timer, `checkpointHighWatermark` and close.
   */
  updateHighWatermark(highWatermark: number): number {
    assert(Number.isSafeInteger(highWatermark) && highWatermark >= 0, `bad high watermark ${highWatermark}`)
    this.#highWatermark = Math.min(Math.max(highWatermark, this.#log.logStartOffset), this.#log.logEndOffset)
    return this.#highWatermark
  }

  /** Moves the high watermark forward only; it may not pass the log end offset. */
  maybeIncrementHighWatermark(highWatermark: number): boolean {
    assert(
      highWatermark <= this.#log.logEndOffset,
      `high watermark ${highWatermark} beyond log end ${this.logEndOffset}`,
    )
    if (highWatermark <= this.#highWatermark) return false
    this.#highWatermark = highWatermark
    return true
  }

  checkpointHighWatermark(): Promise<void> {
    return this.#mutate('high watermark checkpoint', () => this.#writeCheckpoint())
  }

  /** Rolls the active segment when its first batch is older than `maxSegmentAgeMs`. */
  maybeRoll(nowMs: number, maxSegmentAgeMs: number): Promise<boolean> {
    return this.#mutate('roll', () => this.#maintenance.maybeRollByAge(nowMs, maxSegmentAgeMs))
  }

  /** Seals the active segment now (no-op when it is empty). */
  roll(): Promise<boolean> {
    return this.#mutate('roll', () => this.#maintenance.roll())
  }

  /** fsync of the active segment. */
  flush(): Promise<void> {
    return this.#mutate('flush', () => this.#log.flush())
  }

  /** Drops every batch holding `offset` or above (followers); false when nothing was above it. */
  async truncateTo(offset: number): Promise<boolean> {
    assert(Number.isSafeInteger(offset) && offset >= 0, `bad truncation offset ${offset}`)
    return this.#exclusive('truncate', async () => {
      const truncated = await this.#maintenance.truncateTo(offset)
      this.#clampHighWatermark()
      return truncated
    })
  }

  /** Deletes all data and restarts the log (and high watermark) at `offset`. */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    assert(Number.isSafeInteger(offset) && offset >= 0, `bad start offset ${offset}`)
    return this.#exclusive('truncate fully', async () => {
      await this.#maintenance.truncateFullyAndStartAt(offset)
      this.#highWatermark = offset
    })
  }

  /**
   * Retention by time: deletes the oldest sealed segments whose max commit timestamp is more than
   * `ttlMs` before `nowMs` and that lie below the high watermark. `ttlMs` 0 disables. Returns the
   * number of segments deleted; the log start offset moves to the first remaining segment.
   */
  deleteSegmentsOlderThan(ttlMs: number, nowMs: number): Promise<number> {
    if (ttlMs <= 0) return Promise.resolve(0)
    return this.#exclusive('retention', () =>
      this.#maintenance.deleteOlderThan(ttlMs, nowMs, this.#highWatermark),
    )
  }

  /** Deletes sealed segments that end at or below `offset` (and the high watermark), e.g. after upload. */
  deleteSegmentsBelow(offset: number): Promise<number> {
    return this.#exclusive('segment deletion', () =>
      this.#maintenance.deleteBelow(Math.min(offset, this.#highWatermark)),
    )
  }

  /**
   * The first offset whose batch commit timestamp is >= `timestampMs` (batch granularity). A
   * timestamp after now is INVALID_TIMESTAMP_EXCEPTION; one after every batch gives the high
   * watermark (the latest offset a client may read).
   */
  offsetForTimestamp(timestampMs: number): Promise<number> {
    return this.#lock.shared(async () => {
      this.#ensureOpen()
      const nowMs = this.#options.clock.nowMs()
      if (timestampMs > nowMs) {
        throw new FlussError(
          'INVALID_TIMESTAMP_EXCEPTION',
          `Get offset error for table bucket ${this.name}, the fetch timestamp ${timestampMs} ` +
            `is larger than the current timestamp ${nowMs}`,
        )
      }
      if (timestampMs > this.#log.localMaxTimestamp) return this.#highWatermark
      return (await this.#log.lookupOffsetForTimestamp(timestampMs)) ?? this.#highWatermark
    })
  }

  /** Segments that no longer take appends, oldest first, with their files (for remote upload). */
  sealedSegments(): Promise<SealedSegment[]> {
    return this.#lock.shared(async () => {
      this.#ensureOpen()
      return this.#maintenance.sealedSegments()
    })
  }

  removeExpiredWriters(nowMs: number): Promise<number> {
    return this.#mutate('writer expiration', async () => this.#writers.removeExpiredWriters(nowMs))
  }

  /**
   * Writes everything needed for a fast clean open: writer snapshot, high-watermark checkpoint,
   * indexes, fsync, then the clean-shutdown marker. On failure the files are closed anyway and the
   * next open recovers.
   */
  close(): Promise<void> {
    return this.#executor.run(
      () =>
        this.#lock.exclusive(async () => {
          if (this.#closed) return
          this.#closed = true
          this.#checkpoint.stopTimer()
          try {
            this.#writers.mapEndOffset = this.#log.logEndOffset
            await this.#writers.takeSnapshot()
            await this.#writeCheckpoint()
            await this.#log.close()
            await writeFileAtomic(this.#options.io, join(this.dir, CLEAN_SHUTDOWN_FILE), Buffer.alloc(0))
          } catch (e) {
            await this.#log.closeQuietly()
            throw storageError(e, `closing ${this.name}`)
          }
        }),
      true,
    )
  }

  /** Closes the log and deletes its directory (the replica is removed from this server). */
  drop(): Promise<void> {
    return this.#executor.run(
      () =>
        this.#lock.exclusive(async () => {
          this.#closed = true
          this.#checkpoint.stopTimer()
          await this.#log.closeQuietly()
          await this.#options.io.removeTree(this.dir)
        }),
      true,
    )
  }

  async #appendAsLeader({ buffer, batches }: ValidatedRecords): Promise<LogAppendInfo> {
    const nowMs = this.#options.clock.nowMs()
    const timestamp = Math.max(this.#log.localMaxTimestamp, nowMs)
    assignOffsetsAndTimestamp(batches, this.#log.logEndOffset, timestamp)
    const plan = this.#writers.planAppend(batches, true, nowMs)
    if (!plan.duplicate) return this.#write(buffer, batches, timestamp, plan)
    const { firstOffset, lastOffset, timestamp: maxTimestamp } = plan.duplicate
    const logEndOffset = this.#log.logEndOffset
    return {
      firstOffset,
      lastOffset,
      logEndOffset,
      maxTimestamp,
      duplicate: true,
      batchCount: batches.length,
      sizeInBytes: 0,
    }
  }

  async #appendAsFollower({ buffer, batches }: ValidatedRecords): Promise<LogAppendInfo> {
    const maxTimestamp = checkFollowerBatches(batches, this.#log.logEndOffset, this.name)
    const plan = this.#writers.planAppend(batches, false, this.#options.clock.nowMs())
    return this.#write(buffer, batches, maxTimestamp, plan)
  }

  async #write(
    buffer: Buffer,
    batches: readonly LogRecordBatch[],
    maxTimestamp: number,
    plan: ReturnType<WriterStateManager['planAppend']>,
  ): Promise<LogAppendInfo> {
    const firstOffset = batches[0].baseOffset
    const lastOffset = batches[batches.length - 1].lastOffset
    if (await this.#log.maybeRollFor(buffer.length, lastOffset)) await this.#maintenance.snapshotWriters()
    await this.#log.append(buffer, placementsOf(batches), lastOffset, maxTimestamp)
    this.#writers.apply(plan)
    this.#writers.mapEndOffset = this.#log.logEndOffset
    const logEndOffset = this.#log.logEndOffset
    return {
      firstOffset,
      lastOffset,
      logEndOffset,
      maxTimestamp,
      duplicate: false,
      batchCount: batches.length,
      sizeInBytes: buffer.length,
    }
  }

  #mutate<T>(what: string, task: () => Promise<T>): Promise<T> {
    return this.#executor.run(async () => {
      this.#ensureOpen()
      try {
        return await task()
      } catch (e) {
        throw storageError(e, `${what} of ${this.name}`)
      }
    })
  }

  /** A mutation that also waits for in-flight reads (it removes or rewrites bytes). */
  #exclusive<T>(what: string, task: () => Promise<T>): Promise<T> {
    return this.#mutate(what, () => this.#lock.exclusive(task))
  }

  #ensureOpen(): void {
    if (this.#closed) throw new FlussError('LOG_STORAGE_EXCEPTION', `log ${this.name} is closed`)
  }

  #clampHighWatermark(): void {
    const { logStartOffset, logEndOffset } = this.#log
    this.#highWatermark = Math.min(Math.max(this.#highWatermark, logStartOffset), logEndOffset)
  }

  #writeCheckpoint(): Promise<void> {
    return this.#checkpoint.writeIfChanged(this.#highWatermark)
  }

  #startCheckpointTimer(): void {
    this.#checkpoint.startTimer(this.#options.highWatermarkCheckpointIntervalMs, () => {
      if (this.#closed || this.#executor.queued >= this.#executor.maxQueued) return
      this.checkpointHighWatermark().then(
        () => {
          this.lastBackgroundError = null
        },
        (e: Error) => {
          this.lastBackgroundError = e
        },
      )
    })
  }
}
