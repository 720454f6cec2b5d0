import { FlussError } from '../errors/index.js'

/*
 * Log record batch, magic V0 (what every 0.9.1 client writes). All fields little-endian.
 *
 *   offset  size  field            notes
 *   ------  ----  ---------------  ------------------------------------------------------------
 *        0     8  BaseOffset       int64; clients write 0, the leader patches in the assigned offset
 *        8     4  Length           int32; batch size - 12 (bytes after this field)
 *       12     1  Magic            int8; 0
 *       13     8  CommitTimestamp  int64 ms; clients write 0, the leader patches in the append time
 *       21     4  CRC              uint32; CRC-32C over [SchemaId, end of batch)
 *       25     2  SchemaId         int16
 *       27     1  Attributes       int8; bit 0 = append-only, bits 1-7 unused
 *       28     4  LastOffsetDelta  int32; recordCount - 1, or 0 for an empty batch
 *       32     8  WriterId         int64; -1 = not idempotent
 *       40     4  BatchSequence    int32; -1 = not idempotent
 *       44     4  RecordCount      int32
 *       48     -  records          [change-type vector: RecordCount bytes, ARROW and not append-only]
 *                                  then the records payload (one Arrow IPC message, or rows)
 *
 * Magic V1 as defined by release 0.9.1 (`LogRecordBatchFormat`, V1 = "LeaderEpoch" layout; no client
 * of that release writes it) inserts LeaderEpoch int32 at 21 and shifts the CRC-covered part by 4:
 * CRC 25, SchemaId 29, Attributes 31, LastOffsetDelta 32, WriterId 36, BatchSequence 44,
 * RecordCount 48, records at 52. We read it; we never write it unless asked to (tests).
 *
 * BaseOffset, CommitTimestamp and LeaderEpoch lie before the CRC range, so the server patches them
 * in place without re-checksumming.
 */

export const BASE_OFFSET_OFFSET = 0
export const LENGTH_OFFSET = 8
export const MAGIC_OFFSET = 12
export const COMMIT_TIMESTAMP_OFFSET = 13
/** Bytes before the batch's Length field counts: BaseOffset + Length. */
export const LOG_OVERHEAD = 12

export const LOG_MAGIC_VALUE_V0 = 0
export const LOG_MAGIC_VALUE_V1 = 1
export const CURRENT_LOG_MAGIC_VALUE = LOG_MAGIC_VALUE_V0

export const NO_WRITER_ID = -1
export const NO_BATCH_SEQUENCE = -1
export const NO_LEADER_EPOCH = -1
export const APPEND_ONLY_FLAG_MASK = 0x01

/** Where each field sits for one magic value. */
export interface LogBatchLayout {
  readonly magic: number
  /** -1 when the magic has no LeaderEpoch field. */
  readonly leaderEpochOffset: number
  readonly crcOffset: number
  readonly schemaIdOffset: number
  readonly attributesOffset: number
  readonly lastOffsetDeltaOffset: number
  readonly writerIdOffset: number
  readonly batchSequenceOffset: number
  readonly recordCountOffset: number
  /** Also where the records section (and an ARROW change-type vector) starts. */
  readonly headerSize: number
}

function layout(magic: number, leaderEpochOffset: number): LogBatchLayout {
  const crcOffset = leaderEpochOffset < 0 ? 21 : leaderEpochOffset + 4
  const schemaIdOffset = crcOffset + 4
  return {
    magic,
    leaderEpochOffset,
    crcOffset,
    schemaIdOffset,
    attributesOffset: schemaIdOffset + 2,
    lastOffsetDeltaOffset: schemaIdOffset + 3,
    writerIdOffset: schemaIdOffset + 7,
    batchSequenceOffset: schemaIdOffset + 15,
    recordCountOffset: schemaIdOffset + 19,
    headerSize: schemaIdOffset + 23,
  }
}

export const V0_LAYOUT: LogBatchLayout = layout(LOG_MAGIC_VALUE_V0, -1)
export const V1_LAYOUT: LogBatchLayout = layout(LOG_MAGIC_VALUE_V1, 21)
export const V0_RECORD_BATCH_HEADER_SIZE = V0_LAYOUT.headerSize
export const V1_RECORD_BATCH_HEADER_SIZE = V1_LAYOUT.headerSize
/** The smallest header of any supported magic: no batch can be shorter. */
export const MIN_RECORD_BATCH_HEADER_SIZE = V0_RECORD_BATCH_HEADER_SIZE
/** The largest header of any supported magic: reading this many bytes always covers a header. */
export const MAX_RECORD_BATCH_HEADER_SIZE = V1_RECORD_BATCH_HEADER_SIZE

export function isSupportedMagic(magic: number): boolean {
  return magic === LOG_MAGIC_VALUE_V0 || magic === LOG_MAGIC_VALUE_V1
}

/** The field layout for `magic`; an unknown magic is a corrupt record (Fluss 0.9.1 knows V0 and V1). */
export function layoutForMagic(magic: number): LogBatchLayout {
  if (magic === LOG_MAGIC_VALUE_V0) return V0_LAYOUT
  if (magic === LOG_MAGIC_VALUE_V1) return V1_LAYOUT
  throw new FlussError('CORRUPT_RECORD_EXCEPTION', `unsupported log batch magic ${magic}, expected 0 or 1`)
}

/** Reads a little-endian int64 as a number (exact while it is a safe integer). */
export function readInt64LE(buf: Buffer, pos: number): number {
  return buf.readInt32LE(pos + 4) * 4294967296 + buf.readUInt32LE(pos)
}

/** Writes a safe-integer number as a little-endian int64. */
export function writeInt64LE(buf: Buffer, pos: number, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`int64 field value ${value} is not a safe integer`)
  buf.writeBigInt64LE(BigInt(value), pos)
}

/** A Buffer view over the same memory as `bytes` (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
