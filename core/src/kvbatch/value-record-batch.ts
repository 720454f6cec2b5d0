import { FlussError } from '../errors/index.js'
import { asBuffer } from '../row/compacted/compacted-row-reader.js'
import { checkSchemaId, SCHEMA_ID_LENGTH } from '../row/value-codec.js'
import { ByteBuilder } from './byte-builder.js'
import { corruptMessage } from './kv-record-batch-format.js'

/**
 * Fluss's DefaultValueRecordBatch (magic 0), returned by LIMIT_SCAN on primary-key tables:
 * `Length int32 | Magic int8 | RecordCount int32 | records`, each record
 * `Length int32 | SchemaId int16 | row`; Length fields count the bytes after themselves. No CRC.
 */
export const VALUE_BATCH_LENGTH_OFFSET = 0
export const VALUE_BATCH_MAGIC_OFFSET = 4
export const VALUE_BATCH_RECORD_COUNT_OFFSET = 5
export const VALUE_BATCH_HEADER_SIZE = 9
export const VALUE_BATCH_MAGIC_V0 = 0
const LENGTH_SIZE = 4

/** One value record: the schema id and a view of the row bytes. */
export interface ValueRecord {
  readonly schemaId: number
  readonly row: Buffer
}

export interface ValueRecordBatchBuilderOptions {
  /** Maximum batch size in bytes; one record may exceed it alone. Unbounded when omitted. */
  readonly writeLimitBytes?: number
  readonly initialCapacityBytes?: number
}

export class ValueRecordBatchBuilder {
  private readonly out: ByteBuilder
  private readonly writeLimitBytes: number
  private count = 0

  constructor(options: ValueRecordBatchBuilderOptions = {}) {
    this.writeLimitBytes = options.writeLimitBytes ?? Number.POSITIVE_INFINITY
    this.out = new ByteBuilder(Math.min(options.initialCapacityBytes ?? 1024, this.writeLimitBytes))
    this.out.pos = VALUE_BATCH_HEADER_SIZE
  }

  get recordCount(): number {
    return this.count
  }

  get sizeInBytes(): number {
    return this.out.pos
  }

  /** Whether a record with `rowBytes` row bytes fits; always true for the first record. */
  hasRoomFor(rowBytes: number): boolean {
    return (
      this.count === 0 || this.out.pos + LENGTH_SIZE + SCHEMA_ID_LENGTH + rowBytes <= this.writeLimitBytes
    )
  }

  /** Appends a row encoded with `schemaId`. */
  append(schemaId: number, row: Uint8Array): void {
    checkSchemaId(schemaId)
    this.checkRoom(row.length)
    this.out.int32(SCHEMA_ID_LENGTH + row.length)
    this.out.int16(schemaId)
    this.out.bytes(row)
    this.count++
  }

  /** Appends a stored KV value, which already is `[schemaId int16][row]`. */
  appendValue(value: Uint8Array): void {
    if (value.length < SCHEMA_ID_LENGTH) {
      throw new FlussError('CORRUPT_RECORD_EXCEPTION', `A KV value of ${value.length} bytes has no schema id`)
    }
    this.checkRoom(value.length - SCHEMA_ID_LENGTH)
    this.out.int32(value.length)
    this.out.bytes(value)
    this.count++
  }

  /** Writes the header and returns a view of the batch (valid until the next append). */
  build(): Buffer {
    const buf = this.out.buf
    buf.writeInt32LE(this.out.pos - LENGTH_SIZE, VALUE_BATCH_LENGTH_OFFSET)
    buf.writeInt8(VALUE_BATCH_MAGIC_V0, VALUE_BATCH_MAGIC_OFFSET)
    buf.writeInt32LE(this.count, VALUE_BATCH_RECORD_COUNT_OFFSET)
    return buf.subarray(0, this.out.pos)
  }

  private checkRoom(rowBytes: number): void {
    if (!this.hasRoomFor(rowBytes)) {
      throw new FlussError(
        'RECORD_TOO_LARGE_EXCEPTION',
        `A value record of ${rowBytes} row bytes does not fit in the batch (${this.out.pos} of ${this.writeLimitBytes} bytes used)`,
      )
    }
  }
}

/** A validated DefaultValueRecordBatch; `from()` checks size, magic and every record's framing. */
export class ValueRecordBatch {
  private constructor(readonly bytes: Buffer) {}

  /** Validates and wraps exactly one batch occupying all of `bytes`. */
  static from(bytes: Uint8Array): ValueRecordBatch {
    const buf = asBuffer(bytes)
    if (buf.length < VALUE_BATCH_HEADER_SIZE) {
      throw corruptMessage(`Value record batch of ${buf.length} bytes is shorter than its header`)
    }
    const declared = buf.readInt32LE(VALUE_BATCH_LENGTH_OFFSET) + LENGTH_SIZE
    if (declared !== buf.length) {
      throw corruptMessage(`Value record batch declares ${declared} bytes but has ${buf.length}`)
    }
    const magic = buf.readInt8(VALUE_BATCH_MAGIC_OFFSET)
    if (magic !== VALUE_BATCH_MAGIC_V0) throw corruptMessage(`Unsupported value record batch magic ${magic}`)
    checkValueRecords(buf, buf.readInt32LE(VALUE_BATCH_RECORD_COUNT_OFFSET))
    return new ValueRecordBatch(buf)
  }

  get sizeInBytes(): number {
    return this.bytes.length
  }

  get magic(): number {
    return this.bytes.readInt8(VALUE_BATCH_MAGIC_OFFSET)
  }

  get recordCount(): number {
    return this.bytes.readInt32LE(VALUE_BATCH_RECORD_COUNT_OFFSET)
  }

  *records(): IterableIterator<ValueRecord> {
    const buf = this.bytes
    let pos = VALUE_BATCH_HEADER_SIZE
    for (let i = this.recordCount; i > 0; i--) {
      const end = pos + LENGTH_SIZE + buf.readInt32LE(pos)
      yield {
        schemaId: buf.readInt16LE(pos + LENGTH_SIZE),
        row: buf.subarray(pos + LENGTH_SIZE + SCHEMA_ID_LENGTH, end),
      }
      pos = end
    }
  }

  [Symbol.iterator](): IterableIterator<ValueRecord> {
    return this.records()
  }
}

function checkValueRecords(buf: Buffer, count: number): void {
  if (count < 0) throw corruptMessage(`Found invalid record count ${count} in value record batch`)
  let pos = VALUE_BATCH_HEADER_SIZE
  for (let i = 0; i < count; i++) {
    if (buf.length - pos < LENGTH_SIZE) throw corruptMessage(`Value record ${i} is truncated`)
    const length = buf.readInt32LE(pos)
    const remaining = buf.length - pos - LENGTH_SIZE
    if (length < SCHEMA_ID_LENGTH || length > remaining) {
      throw corruptMessage(`Value record ${i} has length ${length} but ${remaining} bytes remain`)
    }
    pos += LENGTH_SIZE + length
  }
  if (pos !== buf.length) {
    throw corruptMessage(
      `Incorrect declared batch size: ${buf.length - pos} bytes follow the last of ${count} records`,
    )
  }
}
