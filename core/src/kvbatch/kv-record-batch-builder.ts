import { assert, FlussError } from '../errors/index.js'
import { crc32c } from '../record/crc32c.js'
import { varIntSize } from '../row/compacted/compacted-row-writer.js'
import { checkSchemaId } from '../row/value-codec.js'
import { ByteBuilder } from './byte-builder.js'
import {
  CURRENT_KV_MAGIC,
  KV_ATTRIBUTES_OFFSET,
  KV_BATCH_HEADER_SIZE,
  KV_BATCH_OVERHEAD,
  KV_BATCH_SEQUENCE_OFFSET,
  KV_CRC_OFFSET,
  KV_LENGTH_OFFSET,
  KV_MAGIC_OFFSET,
  KV_RECORD_COUNT_OFFSET,
  KV_RECORD_LENGTH_SIZE,
  KV_SCHEMA_ID_OFFSET,
  KV_WRITER_ID_OFFSET,
  NO_BATCH_SEQUENCE,
  NO_WRITER_ID,
} from './kv-record-batch-format.js'

export interface KvRecordBatchBuilderOptions {
  /** Schema id the value rows are encoded with. */
  readonly schemaId: number
  /** Maximum batch size in bytes (the writer's `client.writer.batch-size`); one record may exceed it alone. */
  readonly writeLimitBytes: number
  readonly initialCapacityBytes?: number
}

/** Size of one KV record in a batch, its Length field included. A null row is a delete. */
export function kvRecordSize(key: Uint8Array, row: Uint8Array | null): number {
  return KV_RECORD_LENGTH_SIZE + varIntSize(key.length) + key.length + (row === null ? 0 : row.length)
}

/**
 * Builds one DefaultKvRecordBatch (magic 0). Records are appended in order; `build()` writes the
 * header and the CRC-32C and returns a view of the internal buffer. The writer id and batch sequence
 * sit inside the CRC range, so `setWriterState` after `build()` makes the next `build()` rewrite the
 * header and the CRC (the previously returned view changes with it).
 */
export class KvRecordBatchBuilder {
  private readonly out: ByteBuilder
  private readonly schemaId: number
  private readonly writeLimitBytes: number
  private count = 0
  private built: Buffer | null = null
  private closed = false
  private currentWriterId: bigint = NO_WRITER_ID
  private currentBatchSequence: number = NO_BATCH_SEQUENCE

  constructor(options: KvRecordBatchBuilderOptions) {
    checkSchemaId(options.schemaId)
    this.schemaId = options.schemaId
    this.writeLimitBytes = options.writeLimitBytes
    this.out = new ByteBuilder(Math.min(options.initialCapacityBytes ?? 1024, options.writeLimitBytes))
    this.out.pos = KV_BATCH_HEADER_SIZE
  }

  get recordCount(): number {
    return this.count
  }

  get sizeInBytes(): number {
    return this.out.pos
  }

  get writerId(): bigint {
    return this.currentWriterId
  }

  get batchSequence(): number {
    return this.currentBatchSequence
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** Whether the record fits under the write limit; always true for the first record. */
  hasRoomFor(key: Uint8Array, row: Uint8Array | null): boolean {
    return this.count === 0 || this.out.pos + kvRecordSize(key, row) <= this.writeLimitBytes
  }

  /** Appends a put (`row` = encoded value row) or a delete (`row` = null). */
  append(key: Uint8Array, row: Uint8Array | null): void {
    assert(!this.closed, 'append to a closed KV record batch builder')
    if (key.length === 0) throw new FlussError('INVALID_REQUEST', 'A KV record key must not be empty')
    if (row !== null && row.length === 0) {
      throw new FlussError('INVALID_REQUEST', 'A KV record row must not be empty (a null row is a delete)')
    }
    if (!this.hasRoomFor(key, row)) {
      throw new FlussError(
        'RECORD_TOO_LARGE_EXCEPTION',
        `A KV record of ${kvRecordSize(key, row)} bytes does not fit in the batch (${this.out.pos} of ${this.writeLimitBytes} bytes used)`,
      )
    }
    const out = this.out
    out.int32(varIntSize(key.length) + key.length + (row === null ? 0 : row.length))
    out.varUint(key.length)
    out.bytes(key)
    if (row !== null) out.bytes(row)
    this.count++
    this.built = null
  }

  /** Sets the idempotent writer state; the header and CRC are rewritten by the next `build()`. */
  setWriterState(writerId: bigint, batchSequence: number): void {
    this.currentWriterId = writerId
    this.currentBatchSequence = batchSequence
    this.built = null
  }

  /** No more appends; `build()` stays possible. */
  close(): void {
    this.closed = true
  }

  build(): Buffer {
    if (this.built !== null) return this.built
    const buf = this.out.buf
    const size = this.out.pos
    buf.writeInt32LE(size - KV_BATCH_OVERHEAD, KV_LENGTH_OFFSET)
    buf.writeInt8(CURRENT_KV_MAGIC, KV_MAGIC_OFFSET)
    buf.writeInt16LE(this.schemaId, KV_SCHEMA_ID_OFFSET)
    buf.writeInt8(0, KV_ATTRIBUTES_OFFSET)
    buf.writeInt32LE(this.count, KV_RECORD_COUNT_OFFSET)
    this.built = buf.subarray(0, size)
    writeKvBatchWriterState(this.built, this.currentWriterId, this.currentBatchSequence)
    return this.built
  }
}

/**
 * Sets WriterId and BatchSequence of an encoded KV batch in place and recomputes its CRC-32C
 * (both fields are inside the checksummed range).
 */
export function writeKvBatchWriterState(batch: Buffer, writerId: bigint, batchSequence: number): void {
  batch.writeBigInt64LE(writerId, KV_WRITER_ID_OFFSET)
  batch.writeInt32LE(batchSequence, KV_BATCH_SEQUENCE_OFFSET)
  batch.writeUInt32LE(crc32c(batch.subarray(KV_SCHEMA_ID_OFFSET)), KV_CRC_OFFSET)
}
