import { FlussError } from '../errors/index.js'
import { varIntSize } from '../row/compacted/compacted-row-writer.js'

/**
 * Layout of Fluss's DefaultKvRecordBatch (magic 0), all little-endian:
 *
 * | field         | size | offset |
 * |---------------|------|--------|
 * | Length        | 4    | 0      | batch size − 4
 * | Magic         | 1    | 4      |
 * | CRC           | 4    | 5      | CRC-32C over SchemaId..end
 * | SchemaId      | 2    | 9      |
 * | Attributes    | 1    | 11     | 0
 * | WriterId      | 8    | 12     | -1 when not idempotent
 * | BatchSequence | 4    | 20     | -1 when not idempotent
 * | RecordCount   | 4    | 24     |
 * | Records       |      | 28     |
 *
 * Each record: `Length int32 | KeyLength unsigned varint | Key | Row` where Length counts the bytes
 * after itself and an empty row means delete.
 */
export const KV_LENGTH_OFFSET = 0
export const KV_MAGIC_OFFSET = 4
export const KV_CRC_OFFSET = 5
export const KV_SCHEMA_ID_OFFSET = 9
export const KV_ATTRIBUTES_OFFSET = 11
export const KV_WRITER_ID_OFFSET = 12
export const KV_BATCH_SEQUENCE_OFFSET = 20
export const KV_RECORD_COUNT_OFFSET = 24
export const KV_BATCH_HEADER_SIZE = 28
/** Bytes of the batch not counted by its Length field. */
export const KV_BATCH_OVERHEAD = 4
export const KV_MAGIC_V0 = 0
export const CURRENT_KV_MAGIC = KV_MAGIC_V0

export const NO_WRITER_ID = -1n
export const NO_BATCH_SEQUENCE = -1

/** Bytes of a record's own Length field. */
export const KV_RECORD_LENGTH_SIZE = 4

export function corruptMessage(message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', message)
}

/**
 * Reads the unsigned LEB128 varint of a non-negative int32 (Fluss's `VarLengthUtils`) at `pos`,
 * bounded by `limit`. Fluss skips the key length by its minimal size, so only the minimal encoding
 * is accepted; its size is `varIntSize(value)`.
 */
export function readUnsignedVarInt(buf: Uint8Array, pos: number, limit: number): number {
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (pos + i >= limit) throw corruptMessage('Truncated varint in KV record')
    const b = buf[pos + i]
    value |= (b & 0x7f) << (7 * i)
    if (b < 0x80) {
      if (i === 4 && b > 0x07) throw corruptMessage('Varint in KV record exceeds the int range')
      if (i + 1 !== varIntSize(value)) throw corruptMessage('Varint in KV record is not minimally encoded')
      return value
    }
  }
  throw corruptMessage('Varint in KV record is longer than 5 bytes')
}
