import { crc32c } from '../record/crc32c.js'
import { asBuffer } from '../row/compacted/compacted-row-reader.js'
import { varIntSize } from '../row/compacted/compacted-row-writer.js'
import {
  CURRENT_KV_MAGIC,
  corruptMessage,
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
  readUnsignedVarInt,
} from './kv-record-batch-format.js'

/** One KV record: views of the batch bytes. A null row is a delete. */
export interface KvRecord {
  readonly key: Buffer
  readonly row: Buffer | null
}

/**
 * A validated DefaultKvRecordBatch. `from()` checks the size, magic, CRC-32C and the framing of
 * every record before returning, so a corrupt batch is rejected whole (CORRUPT_MESSAGE) and
 * iterating a returned batch cannot fail.
 */
export class KvRecordBatch {
  private constructor(readonly bytes: Buffer) {}

  /** Validates and wraps exactly one batch occupying all of `bytes`. */
  static from(bytes: Uint8Array): KvRecordBatch {
    const buf = asBuffer(bytes)
    checkHeader(buf)
    const batch = new KvRecordBatch(buf)
    const computed = crc32c(buf.subarray(KV_SCHEMA_ID_OFFSET))
    if (computed !== batch.checksum) {
      throw corruptMessage(
        `Record batch is corrupt (stored crc = ${batch.checksum}, computed crc = ${computed})`,
      )
    }
    checkRecords(buf, batch.recordCount)
    return batch
  }

  get sizeInBytes(): number {
    return this.bytes.length
  }

  get magic(): number {
    return this.bytes.readInt8(KV_MAGIC_OFFSET)
  }

  get checksum(): number {
    return this.bytes.readUInt32LE(KV_CRC_OFFSET)
  }

  get schemaId(): number {
    return this.bytes.readInt16LE(KV_SCHEMA_ID_OFFSET)
  }

  get attributes(): number {
    return this.bytes.readInt8(KV_ATTRIBUTES_OFFSET)
  }

  get writerId(): bigint {
    return this.bytes.readBigInt64LE(KV_WRITER_ID_OFFSET)
  }

  get batchSequence(): number {
    return this.bytes.readInt32LE(KV_BATCH_SEQUENCE_OFFSET)
  }

  get recordCount(): number {
    return this.bytes.readInt32LE(KV_RECORD_COUNT_OFFSET)
  }

  /** The records in batch order (keys and rows are views of the batch bytes). */
  *records(): IterableIterator<KvRecord> {
    const buf = this.bytes
    let pos = KV_BATCH_HEADER_SIZE
    for (let i = this.recordCount; i > 0; i--) {
      const end = pos + KV_RECORD_LENGTH_SIZE + buf.readInt32LE(pos)
      const keyLength = readUnsignedVarInt(buf, pos + KV_RECORD_LENGTH_SIZE, end)
      const keyStart = pos + KV_RECORD_LENGTH_SIZE + varIntSize(keyLength)
      const keyEnd = keyStart + keyLength
      yield { key: buf.subarray(keyStart, keyEnd), row: keyEnd === end ? null : buf.subarray(keyEnd, end) }
      pos = end
    }
  }

  [Symbol.iterator](): IterableIterator<KvRecord> {
    return this.records()
  }
}

function checkHeader(buf: Buffer): void {
  if (buf.length < KV_BATCH_HEADER_SIZE) {
    throw corruptMessage(
      `Record batch is corrupt (the size ${buf.length} is smaller than the minimum allowed overhead ${KV_BATCH_HEADER_SIZE})`,
    )
  }
  const declared = buf.readInt32LE(KV_LENGTH_OFFSET) + KV_BATCH_OVERHEAD
  if (declared !== buf.length) {
    throw corruptMessage(`Record batch is corrupt (declared size ${declared}, actual size ${buf.length})`)
  }
  const magic = buf.readInt8(KV_MAGIC_OFFSET)
  if (magic !== CURRENT_KV_MAGIC) throw corruptMessage(`Unsupported KV record batch magic ${magic}`)
  const count = buf.readInt32LE(KV_RECORD_COUNT_OFFSET)
  if (count < 0) throw corruptMessage(`Found invalid record count ${count} in magic v${magic} batch`)
}

function checkRecords(buf: Buffer, count: number): void {
  let pos = KV_BATCH_HEADER_SIZE
  for (let i = 0; i < count; i++) {
    if (buf.length - pos < KV_RECORD_LENGTH_SIZE) throw corruptMessage(`KV record ${i} is truncated`)
    const length = buf.readInt32LE(pos)
    const body = pos + KV_RECORD_LENGTH_SIZE
    if (length < 1 || length > buf.length - body) {
      throw corruptMessage(`KV record ${i} has length ${length} but ${buf.length - body} bytes remain`)
    }
    const keyLength = readUnsignedVarInt(buf, body, body + length)
    if (keyLength > length - varIntSize(keyLength)) {
      throw corruptMessage(`KV record ${i} has key length ${keyLength} beyond its ${length} bytes`)
    }
    pos = body + length
  }
  if (pos !== buf.length) {
    throw corruptMessage(
      `Incorrect declared batch size: ${buf.length - pos} bytes follow the last of ${count} records`,
    )
  }
}
