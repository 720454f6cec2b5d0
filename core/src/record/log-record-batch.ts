import { FlussError } from '../errors/index.js'
import { changeTypeFromByte } from './change-type.js'
import { crc32c } from './crc32c.js'
import {
  APPEND_ONLY_FLAG_MASK,
  asBuffer,
  BASE_OFFSET_OFFSET,
  COMMIT_TIMESTAMP_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  type LogBatchLayout,
  layoutForMagic,
  MAGIC_OFFSET,
  NO_LEADER_EPOCH,
  NO_WRITER_ID,
  readInt64LE,
  writeInt64LE,
} from './log-record-batch-format.js'

function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_RECORD_EXCEPTION', message)
}

/**
 * A view over one log record batch inside a buffer (no copy). The header layout is in
 * `log-record-batch-format.ts`. Constructing the view checks only that the magic byte is readable
 * and known; `validate()` checks the rest.
 */
export class LogRecordBatch {
  readonly buffer: Buffer
  readonly position: number
  readonly layout: LogBatchLayout

  constructor(bytes: Uint8Array, position = 0) {
    this.buffer = asBuffer(bytes)
    this.position = position
    if (this.buffer.length - position < LOG_OVERHEAD + 1) {
      throw corrupt(
        `log batch truncated: ${this.buffer.length - position} bytes at position ${position}, ` +
          `need at least ${LOG_OVERHEAD + 1} to read the magic`,
      )
    }
    this.layout = layoutForMagic(this.buffer.readInt8(position + MAGIC_OFFSET))
  }

  get magic(): number {
    return this.layout.magic
  }
  get baseOffset(): number {
    return readInt64LE(this.buffer, this.position + BASE_OFFSET_OFFSET)
  }
  /** The Length field: bytes after it. */
  get length(): number {
    return this.buffer.readInt32LE(this.position + LENGTH_OFFSET)
  }
  get sizeInBytes(): number {
    return this.length + LOG_OVERHEAD
  }
  get commitTimestamp(): number {
    return readInt64LE(this.buffer, this.position + COMMIT_TIMESTAMP_OFFSET)
  }
  get leaderEpoch(): number {
    const at = this.layout.leaderEpochOffset
    return at < 0 ? NO_LEADER_EPOCH : this.buffer.readInt32LE(this.position + at)
  }
  get crc(): number {
    return this.buffer.readUInt32LE(this.position + this.layout.crcOffset)
  }
  get schemaId(): number {
    return this.buffer.readInt16LE(this.position + this.layout.schemaIdOffset)
  }
  get attributes(): number {
    return this.buffer.readUInt8(this.position + this.layout.attributesOffset)
  }
  get appendOnly(): boolean {
    return (this.attributes & APPEND_ONLY_FLAG_MASK) !== 0
  }
  get lastOffsetDelta(): number {
    return this.buffer.readInt32LE(this.position + this.layout.lastOffsetDeltaOffset)
  }
  get lastOffset(): number {
    return this.baseOffset + this.lastOffsetDelta
  }
  get nextOffset(): number {
    return this.lastOffset + 1
  }
  get writerId(): number {
    return readInt64LE(this.buffer, this.position + this.layout.writerIdOffset)
  }
  get hasWriterId(): boolean {
    return this.writerId !== NO_WRITER_ID
  }
  get batchSequence(): number {
    return this.buffer.readInt32LE(this.position + this.layout.batchSequenceOffset)
  }
  get recordCount(): number {
    return this.buffer.readInt32LE(this.position + this.layout.recordCountOffset)
  }

  /** The whole batch (a view, no copy). */
  bytes(): Buffer {
    return this.buffer.subarray(this.position, this.position + this.sizeInBytes)
  }

  /** Everything after the header: the change-type vector (if any) and the payload. */
  recordsSection(): Buffer {
    return this.buffer.subarray(this.position + this.layout.headerSize, this.position + this.sizeInBytes)
  }

  /**
   * The ARROW change-type vector (`recordCount` bytes), or null for an append-only batch. Meaningful
   * for ARROW batches only: INDEXED and COMPACTED rows carry their change type per record.
   */
  changeTypes(): Buffer | null {
    if (this.appendOnly) return null
    const section = this.recordsSection()
    const count = this.recordCount
    if (count > section.length) {
      throw corrupt(`change-type vector needs ${count} bytes, records section has ${section.length}`)
    }
    const vector = section.subarray(0, count)
    for (const b of vector) changeTypeFromByte(b)
    return vector
  }

  /** The ARROW payload: the records section after the change-type vector. */
  arrowPayload(): Buffer {
    const section = this.recordsSection()
    return this.appendOnly ? section : section.subarray(this.recordCount)
  }

  computeCrc(): number {
    const from = this.position + this.layout.schemaIdOffset
    return crc32c(this.buffer.subarray(from, this.position + this.sizeInBytes))
  }

  isValid(): boolean {
    try {
      this.validate()
      return true
    } catch {
      return false
    }
  }

  /**
   * Checks the batch is whole and self-consistent: size within the buffer and at least a header,
   * CRC-32C matches, recordCount >= 0, lastOffsetDelta = recordCount - 1 (0 when empty), writer id a
   * safe integer. Throws CORRUPT_RECORD_EXCEPTION (what a Fluss server answers for a bad batch).
   */
  validate(): void {
    const size = this.sizeInBytes
    const available = this.buffer.length - this.position
    const { headerSize } = this.layout
    if (size < headerSize) {
      throw corrupt(`log batch size ${size} is smaller than the v${this.magic} header size ${headerSize}`)
    }
    if (size > available) {
      throw corrupt(`log batch truncated: length field says ${size} bytes, only ${available} available`)
    }
    const stored = this.crc
    const computed = this.computeCrc()
    if (stored !== computed) throw corrupt(`log batch CRC mismatch: stored ${stored}, computed ${computed}`)
    this.validateCounts()
  }

  private validateCounts(): void {
    const count = this.recordCount
    if (count < 0) throw corrupt(`log batch record count ${count} is negative`)
    const expectedDelta = count > 0 ? count - 1 : 0
    if (this.lastOffsetDelta !== expectedDelta) {
      throw corrupt(
        `log batch lastOffsetDelta ${this.lastOffsetDelta} does not match record count ${count} ` +
          `(expected ${expectedDelta})`,
      )
    }
    if (!Number.isSafeInteger(this.writerId)) throw corrupt('log batch writer id is out of range')
  }

  /** Patches BaseOffset (outside the CRC range). */
  setBaseOffset(offset: number): void {
    writeInt64LE(this.buffer, this.position + BASE_OFFSET_OFFSET, offset)
  }

  /** Patches CommitTimestamp (outside the CRC range). */
  setCommitTimestamp(timestampMs: number): void {
    writeInt64LE(this.buffer, this.position + COMMIT_TIMESTAMP_OFFSET, timestampMs)
  }

  /** Patches LeaderEpoch (V1 only; outside the CRC range). */
  setLeaderEpoch(epoch: number): void {
    const at = this.layout.leaderEpochOffset
    if (at < 0)
      throw new FlussError('UNSUPPORTED_VERSION', `log batch magic ${this.magic} has no leader epoch`)
    this.buffer.writeInt32LE(epoch, this.position + at)
  }
}
