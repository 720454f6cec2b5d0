import type { ChangelogImage } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import { LogRecordBatch } from '@sluice/core/record'
import type { LogAppendInfo } from '../log/log-tablet-types.js'
import type { AutoIncrementIds } from './auto-increment-ids.js'
import type { ChangelogBuilder } from './changelog-builder.js'
import { applyRecords, skipsOldValues } from './kv-apply.js'
import type { KvFlusher } from './kv-flusher.js'
import type { BatchAnchor } from './kv-meta.js'
import type { KvPreWriteBuffer } from './kv-pre-write-buffer.js'
import {
  checkAutoIncrementTargets,
  checkBatchSchemaId,
  type DecodedRecord,
  decodeRecords,
  latestTargetColumns,
  parseRecords,
} from './kv-records.js'
import type { KvSchemaSource, KvValue, SchemaContext } from './kv-schemas.js'
import {
  type KvChangelogLog,
  type KvPutOptions,
  type KvPutResult,
  MERGE_MODE_OVERWRITE,
} from './kv-tablet-types.js'
import type { RocksDbKv } from './rocksdb-kv.js'
import { createOverwriteRowMerger } from './rowmerger/create-row-merger.js'
import type { RowMerger } from './rowmerger/row-merger.js'

/** What a KvPutter works with (owned by its KvTablet). */
export interface KvPutterParts {
  readonly name: string
  readonly log: KvChangelogLog
  readonly schemas: KvSchemaSource
  readonly rocks: RocksDbKv
  readonly buffer: KvPreWriteBuffer
  readonly flusher: KvFlusher
  readonly merger: RowMerger
  readonly image: ChangelogImage
  readonly changelog: ChangelogBuilder
  readonly maxPendingBytes: number
  readonly autoIncrementIds: AutoIncrementIds | null
  /** Whether the bucket is still led here (see `KvTabletOptions.isLeader`). */
  readonly isLeader: () => boolean
}

/**
 * The write path of a KvTablet (Fluss's `KvTablet.putAsLeader`): validate the KV batch and its
 * rows, refuse what the table forbids, answer retried batches, read the old values (the pre-write
 * buffer first, then one RocksDB read batch), merge record by record into ONE changelog batch,
 * stage the new values in the buffer and append the batch to the log, rolling the buffer back if
 * the append fails.
 */
export class KvPutter {
  readonly #log: KvChangelogLog
  readonly #schemas: KvSchemaSource
  readonly #rocks: RocksDbKv
  readonly #buffer: KvPreWriteBuffer
  readonly #flusher: KvFlusher
  readonly #merger: RowMerger
  readonly #overwriteMerger = createOverwriteRowMerger()
  readonly #image: ChangelogImage
  readonly #changelog: ChangelogBuilder
  readonly #maxPendingBytes: number
  readonly #autoIncrementIds: AutoIncrementIds | null

  constructor(readonly parts: KvPutterParts) {
    this.#log = parts.log
    this.#schemas = parts.schemas
    this.#rocks = parts.rocks
    this.#buffer = parts.buffer
    this.#flusher = parts.flusher
    this.#merger = parts.merger
    this.#image = parts.image
    this.#changelog = parts.changelog
    this.#maxPendingBytes = parts.maxPendingBytes
    this.#autoIncrementIds = parts.autoIncrementIds
  }

  get name(): string {
    return this.parts.name
  }

  /** Validates, merges and appends one PutKv batch. Callers run puts one at a time. */
  async put(bytes: Uint8Array, options: KvPutOptions): Promise<KvPutResult> {
    // Keys stay referenced by the pre-write buffer: own a copy rather than views of the request.
    const batch = KvRecordBatch.from(Buffer.from(bytes))
    const latest = this.#schemas.latest()
    checkBatchSchemaId(batch.schemaId, latest.schemaId)
    const schema = this.#schemas.context(batch.schemaId)
    const targetColumns = options.targetColumns?.length ? options.targetColumns : null
    const merger = this.#mergerFor(options, latest, latestTargetColumns(targetColumns, schema, latest))
    const records = parseRecords(batch)
    if (merger.deleteBehavior === 'DISABLE' && records.some(r => r.rowLength < 0)) {
      throw new FlussError(
        'DELETION_DISABLED_EXCEPTION',
        "Delete operations are disabled for this table. The table.delete.behavior is set to 'disable'.",
      )
    }
    const writerId = Number(batch.writerId)
    const duplicate = this.#findDuplicate(writerId, batch.batchSequence)
    if (duplicate !== null) return duplicate
    this.#checkBufferRoom()
    await this.#reserveIds(records, latest)
    // RocksDB reads the stored values on its own threads while the rows decode here. rocksdb-native
    // submits a read batch from a microtask, so let microtasks run once before decoding.
    const reading = this.#readOldValues(records, merger, latest)
    reading.catch(() => undefined)
    await Promise.resolve()
    decodeRecords(batch, records, schema, targetColumns, latest)
    const oldValues = await reading
    return this.#applyAndAppend(records, merger, latest, oldValues, writerId, batch.batchSequence)
  }

  #mergerFor(
    options: KvPutOptions,
    latest: SchemaContext,
    targetColumns: readonly number[] | null,
  ): RowMerger {
    checkAutoIncrementTargets(latest, targetColumns)
    const base = options.aggMode === MERGE_MODE_OVERWRITE ? this.#overwriteMerger : this.#merger
    return base.configureTargetColumns(targetColumns, latest)
  }

  /** A retried batch (same writer and sequence as one of its last batches) is answered, not re-applied. */
  #findDuplicate(writerId: number, batchSequence: number): KvPutResult | null {
    if (writerId < 0) return null
    const previous = this.#log.writerState(writerId)?.findDuplicate(batchSequence)
    if (previous === undefined) return null
    return {
      firstOffset: previous.lastOffset - previous.offsetDelta,
      lastOffset: previous.lastOffset,
      logEndOffset: this.#log.logEndOffset,
      changelogRecords: 0,
      duplicate: true,
    }
  }

  /** Room for an id per upsert (each may insert a new key) when the table has an auto-increment column. */
  async #reserveIds(records: readonly DecodedRecord[], latest: SchemaContext): Promise<void> {
    const index = latest.autoIncrementIndex
    if (index < 0) return
    const ids = this.#autoIncrementIds
    if (ids === null) {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `${this.name}: auto-increment column ${latest.rowType.fields[index].name} needs ids from the metadata store, and this tablet server runs without one`,
      )
    }
    let upserts = 0
    for (const r of records) if (r.rowLength >= 0) upserts++
    await ids.reserve(upserts)
  }

  #checkBufferRoom(): void {
    const pending = this.#buffer.pendingBytes
    if (pending > this.#maxPendingBytes) {
      throw new FlussError(
        'RESOURCE_EXHAUSTED',
        `${this.name}: ${pending} bytes wait for the high watermark in the pre-write buffer (max ${this.#maxPendingBytes})`,
      )
    }
  }

  /**
   * The old values the records need: those pending in the pre-write buffer now (kept, since a
   * concurrent flush may move them to RocksDB meanwhile), and the others read from RocksDB in one
   * batch (a flush never writes keys that are not in the buffer, so these reads are stable).
   */
  async #readOldValues(
    records: readonly DecodedRecord[],
    merger: RowMerger,
    latest: SchemaContext,
  ): Promise<Map<string, KvValue | Buffer | null>> {
    const skipUpserts = skipsOldValues(merger, this.#image, latest)
    const readDeletes = merger.deleteBehavior === 'ALLOW'
    const keys: Buffer[] = []
    const ids: string[] = []
    const oldValues = new Map<string, KvValue | Buffer | null>()
    for (const r of records) {
      if (r.rowLength < 0 ? !readDeletes : skipUpserts) continue
      if (oldValues.has(r.keyId)) continue
      const entry = this.#buffer.get(r.keyId)
      oldValues.set(r.keyId, entry === undefined ? null : entry.value)
      if (entry !== undefined) continue
      keys.push(r.key)
      ids.push(r.keyId)
    }
    const values = await this.#rocks.multiGet(keys)
    for (let i = 0; i < ids.length; i++) oldValues.set(ids[i], values[i])
    return oldValues
  }

  async #applyAndAppend(
    records: readonly DecodedRecord[],
    merger: RowMerger,
    latest: SchemaContext,
    oldValues: Map<string, KvValue | Buffer | null>,
    writerId: number,
    batchSequence: number,
  ): Promise<KvPutResult> {
    // From this check to the append nothing awaits: a replica that stopped leading (its log may be
    // truncated by now) gets no batch, and the client retries on the new leader.
    if (!this.parts.isLeader()) {
      throw new FlussError('NOT_LEADER_OR_FOLLOWER', `${this.name} is no longer led by this tablet server`)
    }
    const startOffset = this.#log.logEndOffset
    this.#changelog.start(latest)
    try {
      applyRecords(
        {
          merger,
          image: this.#image,
          buffer: this.#buffer,
          schemas: this.#schemas,
          latest,
          changelog: this.#changelog,
          oldValues,
          autoIncrementIds: this.#autoIncrementIds,
        },
        records,
        startOffset,
      )
      const batchBytes = this.#changelog.build(writerId, batchSequence)
      const info = await this.#log.appendAsLeader(batchBytes)
      if (info.duplicate) {
        this.#buffer.truncateTo(startOffset)
        const { firstOffset, lastOffset, logEndOffset } = info
        return { firstOffset, lastOffset, logEndOffset, changelogRecords: 0, duplicate: true }
      }
      // Only this put appends while it runs, unless something else writes to the bucket's log
      // (e.g. a produce request); then its entries move to the offsets the batch really got.
      if (info.firstOffset !== startOffset)
        this.#buffer.shiftFrom(startOffset, info.firstOffset - startOffset)
      this.#flusher.addBatch(anchorOfAppend(batchBytes, info))
      const changelogRecords = this.#changelog.recordCount
      return {
        firstOffset: info.firstOffset,
        lastOffset: info.lastOffset,
        logEndOffset: info.logEndOffset,
        changelogRecords,
        duplicate: false,
      }
    } catch (e) {
      this.#buffer.truncateTo(startOffset)
      throw e
    }
  }
}

/** The appended batch's identity: offsets and time from the log, the CRC (offset-independent) from its bytes. */
function anchorOfAppend(batchBytes: Buffer, info: LogAppendInfo): BatchAnchor {
  return {
    baseOffset: info.firstOffset,
    lastOffset: info.lastOffset,
    crc: new LogRecordBatch(batchBytes).crc,
    commitTimestamp: info.maxTimestamp,
  }
}
