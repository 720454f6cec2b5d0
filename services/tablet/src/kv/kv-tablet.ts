import { initArrowCodecs } from '@sluice/core/arrow'
import { TABLE_CHANGELOG_IMAGE } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { SerialExecutor } from '@sluice/core/util'
import { type ChangelogBuilder, changelogBuilderFor } from './changelog-builder.js'
import { KvFlusher } from './kv-flusher.js'
import { insertIfNotExistsBatch } from './kv-insert.js'
import type { KvMeta } from './kv-meta.js'
import { KvPreWriteBuffer } from './kv-pre-write-buffer.js'
import { KvPutter } from './kv-put.js'
import { isMetaConsistent, type ReplayResult, replayChangelog } from './kv-recovery.js'
import type { KvSchemaSource } from './kv-schemas.js'
import type { KvChangelogLog, KvPutOptions, KvPutResult, KvTabletOptions } from './kv-tablet-types.js'
import { RocksDbKv } from './rocksdb-kv.js'
import { createRowMerger } from './rowmerger/create-row-merger.js'
import type { RowMerger } from './rowmerger/row-merger.js'

/**
 * The primary-key store of one bucket on its leader (Fluss's `KvTablet`): RocksDB plus a pre-write
 * buffer, in front of the bucket's log, which is the source of truth.
 *
 * A put merges each record against the buffer, then RocksDB, builds ONE changelog batch (an empty
 * one when nothing changed), stages the new values in the buffer at the offsets the batch will take
 * and appends the batch to the log; a failed append rolls the buffer back. `flush(hw)` moves the
 * buffered writes below the high watermark into RocksDB; lookups and scans read RocksDB only, so
 * they never see data above the high watermark. Puts run one at a time, and so do flushes; a flush
 * may overlap a put (it only moves entries below the log end offset, which no put touches).
 */
export class KvTablet {
  readonly #log: KvChangelogLog
  readonly #schemas: KvSchemaSource
  readonly #rocks: RocksDbKv
  readonly #buffer: KvPreWriteBuffer
  readonly #options: KvTabletOptions
  readonly #executor: SerialExecutor
  readonly #flushExecutor: SerialExecutor
  readonly #putter: KvPutter
  readonly #flusher: KvFlusher
  readonly #recovery: { readonly fromOffset: number; readonly records: number }
  #flushTarget = 0
  #queuedFlush: Promise<number> | null = null
  #closed = false

  private constructor(
    options: KvTabletOptions,
    parts: {
      schemas: KvSchemaSource
      merger: RowMerger
      changelog: ChangelogBuilder
      rocks: RocksDbKv
      buffer: KvPreWriteBuffer
    },
    replayed: ReplayResult,
  ) {
    const { schemas, merger, changelog, rocks, buffer } = parts
    this.#options = options
    this.#log = options.log
    this.#schemas = schemas
    this.#rocks = rocks
    this.#buffer = buffer
    this.#executor = new SerialExecutor(options.maxQueuedOperations, `kv ${this.name}`)
    this.#flushExecutor = new SerialExecutor(2, `kv flush ${this.name}`)
    this.#recovery = { fromOffset: replayed.fromOffset, records: replayed.records }
    this.#flusher = new KvFlusher(
      rocks,
      buffer,
      options.rocksDb.writeBatchBytes,
      replayed.meta,
      replayed.pendingBatches,
    )
    this.#putter = new KvPutter({
      name: this.name,
      log: options.log,
      schemas,
      rocks,
      buffer,
      flusher: this.#flusher,
      merger,
      image: options.tableConfig.get(TABLE_CHANGELOG_IMAGE),
      changelog,
      maxPendingBytes: options.maxPendingBytes,
      autoIncrementIds: options.autoIncrementIds ?? null,
      isLeader: options.isLeader ?? (() => true),
    })
  }

  /**
   * Opens the store in `dir` and brings it up to the log: from its recorded flushed offset when the
   * log still holds the batch it was taken at, otherwise wiped and rebuilt from the log start.
   * Records up to the high watermark go to RocksDB, the rest to the pre-write buffer.
   */
  static async open(dir: string, options: KvTabletOptions): Promise<KvTablet> {
    return (await KvTablet.#open(dir, options, true)) as KvTablet
  }

  /**
   * Like `open`, but only when the store in `dir` is consistent with the log (its flushed offset
   * lies within the log and the log still holds the same batch there): resolves to null, and leaves
   * the directory as it was, when the store is missing, empty or inconsistent.
   */
  static openIfConsistent(dir: string, options: KvTabletOptions): Promise<KvTablet | null> {
    return KvTablet.#open(dir, options, false)
  }

  static async #open(dir: string, options: KvTabletOptions, rebuild: boolean): Promise<KvTablet | null> {
    await initArrowCodecs()
    const schemas = options.schemas
    const merger = createRowMerger(options.tableConfig, schemas, options.tableSchemaId)
    const changelog = changelogBuilderFor(options.tableConfig)
    let rocks = await RocksDbKv.open(dir, options.rocksDb)
    try {
      let meta = await rocks.readMeta().catch(() => null)
      if (!(await isMetaConsistent(meta, options.log))) {
        await rocks.close()
        if (!rebuild) return null
        await RocksDbKv.destroy(dir)
        rocks = await RocksDbKv.open(dir, options.rocksDb)
        meta = null
      }
      const rowCount = options.tableConfig.get(TABLE_CHANGELOG_IMAGE) === 'WAL' ? -1 : 0
      const start = meta ?? { flushedOffset: options.log.logStartOffset, rowCount, anchor: null }
      const buffer = new KvPreWriteBuffer()
      const replayed = await replayChangelog(
        start,
        options.log,
        schemas,
        rocks,
        buffer,
        options.recoverBatchBytes,
        changelog.format,
      )
      return new KvTablet(options, { schemas, merger, changelog, rocks, buffer }, replayed)
    } catch (e) {
      await rocks.close().catch(() => undefined)
      throw e
    }
  }

  get name(): string {
    return this.#options.name ?? this.#log.name
  }

  /** Every changelog record below this offset is in RocksDB; the high watermark must not pass it. */
  get flushedOffset(): number {
    return this.#flusher.meta.flushedOffset
  }

  /** Where opening replayed the changelog from, and how many records it replayed. */
  get recovery(): { readonly fromOffset: number; readonly records: number } {
    return this.#recovery
  }

  /** Rows in RocksDB (+I minus -D up to the flushed offset); -1 with the WAL image (not maintained). */
  get rowCount(): number {
    return this.#flusher.meta.rowCount
  }

  /** Writes waiting in the pre-write buffer. */
  get pendingWrites(): number {
    return this.#buffer.size
  }

  get isClosed(): boolean {
    return this.#closed
  }

  /** Applies a PutKv batch (KvRecordBatch bytes) and appends its changelog to the log. */
  /** A RocksDB property of this tablet's store, as text (metrics: `rocksdb.cur-size-all-mem-tables`, ...). */
  property(name: string): Promise<string> {
    return this.#rocks.property(name)
  }

  putAsLeader(kvBatchBytes: Uint8Array, options: KvPutOptions = {}): Promise<KvPutResult> {
    return this.#executor.run(() => {
      this.#ensureOpen()
      return this.#putter.put(kvBatchBytes, options)
    })
  }

  /**
   * Moves buffered writes below `highWatermark` into RocksDB (with the new flushed offset, in the
   * same atomic batches) and resolves to the flushed offset. Calls made while a flush is queued join
   * it with the highest target. Call it whenever a new high-watermark candidate appears, and let the
   * high watermark be at most the result.
   */
  flush(highWatermark: number): Promise<number> {
    this.#flushTarget = Math.max(this.#flushTarget, highWatermark)
    if (this.#queuedFlush !== null) return this.#queuedFlush
    const flush = this.#flushExecutor.run(() => {
      this.#queuedFlush = null
      return this.#flushTo(this.#flushTarget)
    }, true)
    this.#queuedFlush = flush
    return flush
  }

  #flushTo(target: number): Promise<number> {
    if (this.#closed) return Promise.resolve(this.flushedOffset)
    return this.#flusher.flushTo(Math.min(target, this.#log.logEndOffset))
  }

  /**
   * Inserts rows for keys that are not stored (primary-key values, NULL elsewhere, auto-increment
   * ids assigned), as a partial update of the primary key: existing keys stay unchanged.
   */
  insertIfNotExists(keys: readonly Buffer[]): Promise<KvPutResult> {
    const latest = this.#schemas.latest()
    if (latest.keyDecoder === null) {
      throw new FlussError(
        'INVALID_REQUEST',
        'Lookups with insert-if-not-exists need a decoder of the primary keys.',
      )
    }
    const batch = insertIfNotExistsBatch(latest, keys, latest.keyDecoder)
    return this.putAsLeader(batch, { targetColumns: latest.primaryKeyIndexes })
  }

  /** Stored values `[schemaId][row]` of `keys` (null when absent), from RocksDB only. */
  lookup(keys: readonly Buffer[]): Promise<(Buffer | null)[]> {
    this.#ensureOpen()
    return this.#rocks.multiGet(keys)
  }

  /** Stored values of every key starting with `prefix` (an encoded bucket key), in key order. */
  prefixLookup(prefix: Buffer): Promise<Buffer[]> {
    this.#ensureOpen()
    return this.#rocks.prefixScan(prefix)
  }

  /** The first `limit` stored values in key order. */
  limitScan(limit: number): Promise<Buffer[]> {
    this.#ensureOpen()
    return this.#rocks.limitScan(limit)
  }

  /**
   * Flushes the buffered writes below the log's high watermark, then runs `task` while no flush
   * writes to RocksDB: RocksDB then holds exactly the changelog below `meta.flushedOffset` (for a
   * consistent checkpoint). Puts, lookups and scans go on meanwhile (puts only read RocksDB and
   * append to the log and the pre-write buffer); high-watermark flushes wait for the task.
   */
  withFlushesPaused<T>(
    task: (store: { readonly meta: KvMeta; readonly rocks: RocksDbKv }) => Promise<T>,
  ): Promise<T> {
    return this.#flushExecutor.run(async () => {
      this.#ensureOpen()
      await this.#flusher.flushTo(Math.min(this.#log.highWatermark, this.#log.logEndOffset))
      return task({ meta: this.#flusher.meta, rocks: this.#rocks })
    }, true)
  }

  /** Closes RocksDB after queued puts and flushes; unflushed writes stay in the log for the next open. */
  close(): Promise<void> {
    return this.#executor.run(
      () =>
        this.#flushExecutor.run(async () => {
          if (this.#closed) return
          this.#closed = true
          await this.#rocks.close()
        }, true),
      true,
    )
  }

  /** Closes and deletes the store's directory. */
  async drop(): Promise<void> {
    await this.close()
    await RocksDbKv.destroy(this.#rocks.dir)
  }

  #ensureOpen(): void {
    if (this.#closed) throw new FlussError('KV_STORAGE_EXCEPTION', `the kv tablet ${this.name} is closed`)
  }
}
