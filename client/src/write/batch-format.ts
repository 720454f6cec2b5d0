import { ArrowBatchWriter, type ArrowCompressionInfo } from '@sluice/core/arrow'
import { assert } from '@sluice/core/errors'
import { KvRecordBatchBuilder, writeKvBatchWriterState } from '@sluice/core/kvbatch'
import { buildLogBatch } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import { ValidatedArrowBatch } from './arrow-batch-input.js'

/** Encodes the records of one open batch. */
export interface RecordsWriter<R> {
  /** Whether `record` still fits (the first record of a batch always does). */
  hasRoomFor(record: R): boolean
  /** Adds `record`; returns how many log records it holds (1, or a pre-encoded batch's count). */
  add(record: R): number
  /** Whether the batch takes no more records (it is then closed and sent as it is). */
  isFull(): boolean
  /** Bytes held now. */
  sizeInBytes(): number
  /** Estimated size once encoded (compression included). */
  estimatedSizeInBytes(): number
  /** Ends the batch and returns its encoded records. */
  finish(): Buffer
}

/** What goes into a batch header when the batch is first sent. */
export interface BatchHeader {
  readonly schemaId: number
  readonly writerId: number
  readonly batchSequence: number
  readonly recordCount: number
}

/**
 * One kind of write batch: how its records are encoded (Arrow log rows, KV records) and framed for
 * the wire, and what offset each record reports once its batch is acknowledged.
 */
export interface BatchFormat<R> {
  newWriter(): RecordsWriter<R>
  /** Takes back the writer of a closed batch; it may be handed out again by `newWriter`. */
  release(writer: RecordsWriter<R>): void
  /** The bytes sent for a batch: the encoded records with the header and the writer state. */
  frame(records: Buffer, header: BatchHeader): Buffer
  /** The offset record `index` reports when its batch was acknowledged at `batchOffset` (-1: unknown). */
  recordOffset(batchOffset: number, index: number): number
}

/** What an append writer's batches take: rows, or a pre-encoded Arrow batch filling a batch alone. */
export type LogWriteRecord = Row | ValidatedArrowBatch

class ArrowRecordsWriter implements RecordsWriter<LogWriteRecord> {
  #encoded: ValidatedArrowBatch | undefined
  #rows = 0

  constructor(readonly arrow: ArrowBatchWriter) {}

  hasRoomFor(record: LogWriteRecord): boolean {
    return this.#encoded === undefined && !(record instanceof ValidatedArrowBatch)
  }

  add(record: LogWriteRecord): number {
    if (record instanceof ValidatedArrowBatch) {
      assert(this.#rows === 0 && this.#encoded === undefined, 'a pre-encoded batch shares a log batch')
      this.#encoded = record
      return record.recordCount
    }
    this.arrow.addRow(record)
    this.#rows++
    return 1
  }

  isFull(): boolean {
    return this.#encoded !== undefined
  }

  sizeInBytes(): number {
    return this.#encoded?.message.length ?? this.arrow.uncompressedSizeInBytes()
  }

  estimatedSizeInBytes(): number {
    return this.#encoded?.message.length ?? this.arrow.estimatedSizeInBytes()
  }

  finish(): Buffer {
    const payload = this.#encoded?.message ?? this.arrow.finish()
    return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
  }

  reset(): void {
    this.arrow.reset()
    this.#encoded = undefined
    this.#rows = 0
  }
}

/**
 * Append-only ARROW log batches (PRODUCE_LOG): rows go into an Arrow column writer, or a batch
 * takes one pre-encoded Arrow message alone; the V0 batch header with the writer state is added when
 * the batch is first sent. Column writers of closed batches are kept and reused. Records report
 * `baseOffset + index`.
 */
export class ArrowLogBatchFormat implements BatchFormat<LogWriteRecord> {
  readonly #spare: ArrowRecordsWriter[] = []

  constructor(
    readonly rowType: RowType,
    readonly compression: ArrowCompressionInfo,
  ) {}

  newWriter(): RecordsWriter<LogWriteRecord> {
    const spare = this.#spare.pop()
    if (spare !== undefined) return spare
    return new ArrowRecordsWriter(new ArrowBatchWriter(this.rowType, { compression: this.compression }))
  }

  release(writer: RecordsWriter<LogWriteRecord>): void {
    const arrow = writer as ArrowRecordsWriter
    arrow.reset()
    this.#spare.push(arrow)
  }

  frame(records: Buffer, header: BatchHeader): Buffer {
    return buildLogBatch({
      schemaId: header.schemaId,
      appendOnly: true,
      writerId: header.writerId,
      batchSequence: header.batchSequence,
      recordCount: header.recordCount,
      records,
    })
  }

  recordOffset(batchOffset: number, index: number): number {
    return batchOffset < 0 ? -1 : batchOffset + index
  }
}

/** One KV record: the encoded primary key, and the encoded value row (null: a delete). */
export interface KvWriteRecord {
  readonly key: Uint8Array
  readonly value: Uint8Array | null
}

class KvRecordsWriter implements RecordsWriter<KvWriteRecord> {
  readonly #builder: KvRecordBatchBuilder

  constructor(schemaId: number, writeLimitBytes: number) {
    this.#builder = new KvRecordBatchBuilder({ schemaId, writeLimitBytes })
  }

  hasRoomFor(record: KvWriteRecord): boolean {
    return this.#builder.hasRoomFor(record.key, record.value)
  }

  add(record: KvWriteRecord): number {
    this.#builder.append(record.key, record.value)
    return 1
  }

  isFull(): boolean {
    return false
  }

  sizeInBytes(): number {
    return this.#builder.sizeInBytes
  }

  estimatedSizeInBytes(): number {
    return this.#builder.sizeInBytes
  }

  finish(): Buffer {
    this.#builder.close()
    return this.#builder.build()
  }
}

/**
 * KV record batches (PUT_KV): the whole DefaultKvRecordBatch is built as records are added, with
 * at most `client.writer.batch-size` bytes (one record may exceed it alone); the writer id and
 * batch sequence are patched into the header (and the CRC recomputed) when the batch is first sent.
 * Every record of a batch reports the bucket's log end offset after the batch.
 */
export class KvBatchFormat implements BatchFormat<KvWriteRecord> {
  constructor(
    readonly schemaId: number,
    readonly batchSizeBytes: number,
  ) {}

  newWriter(): RecordsWriter<KvWriteRecord> {
    return new KvRecordsWriter(this.schemaId, this.batchSizeBytes)
  }

  release(): void {}

  frame(records: Buffer, header: BatchHeader): Buffer {
    writeKvBatchWriterState(records, BigInt(header.writerId), header.batchSequence)
    return records
  }

  recordOffset(batchOffset: number): number {
    return batchOffset
  }
}
