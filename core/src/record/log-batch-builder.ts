import { assert } from '../errors/index.js'
import { type ChangeType, isChangeType } from './change-type.js'
import { crc32c } from './crc32c.js'
import {
  APPEND_ONLY_FLAG_MASK,
  BASE_OFFSET_OFFSET,
  COMMIT_TIMESTAMP_OFFSET,
  LENGTH_OFFSET,
  LOG_MAGIC_VALUE_V0,
  LOG_OVERHEAD,
  layoutForMagic,
  MAGIC_OFFSET,
  NO_BATCH_SEQUENCE,
  NO_LEADER_EPOCH,
  NO_WRITER_ID,
  writeInt64LE,
} from './log-record-batch-format.js'

export interface LogBatchSpec {
  readonly schemaId: number
  /** Append-only batches carry no change-type vector (log tables). */
  readonly appendOnly: boolean
  /** -1 (the default) = not idempotent. */
  readonly writerId?: number
  /** -1 (the default) = not idempotent. */
  readonly batchSequence?: number
  readonly recordCount: number
  /**
   * One per record: the change-type vector of an ARROW batch, required (and only allowed) when not
   * append-only. Row-format batches (`vector: false`) carry the change types in their records.
   */
  readonly changeTypes?: Uint8Array | readonly ChangeType[]
  /** Default true (ARROW); false for INDEXED and COMPACTED batches, which have no vector. */
  readonly vector?: boolean
  /** The records payload, opaque here (an Arrow IPC message, or row-format records). */
  readonly records: Uint8Array
  /** Usually left at 0: the leader assigns it. */
  readonly baseOffset?: number
  /** Usually left at 0: the leader assigns it. */
  readonly commitTimestamp?: number
  /** 0 (the default, what 0.9.1 clients write) or 1 (0.9.1's LeaderEpoch layout). */
  readonly magic?: number
  readonly leaderEpoch?: number
}

function checkSpec(spec: LogBatchSpec): void {
  const { recordCount, changeTypes, appendOnly } = spec
  assert(Number.isInteger(recordCount) && recordCount >= 0, `record count ${recordCount} must be >= 0`)
  assert(
    Number.isInteger(spec.schemaId) && spec.schemaId >= -32768 && spec.schemaId <= 32767,
    'schema id is int16',
  )
  if (appendOnly || spec.vector === false) {
    assert(changeTypes === undefined, 'an append-only or row-format batch has no change-type vector')
  } else {
    const count = changeTypes?.length ?? 0
    assert(count === recordCount, `change types (${count}) must match record count (${recordCount})`)
    for (const t of changeTypes ?? []) assert(isChangeType(t), `invalid change type ${t}`)
  }
}

/**
 * Writes one log record batch: header, change-type vector (when not append-only), records payload,
 * and the CRC-32C over SchemaId..end. Returns a new buffer holding exactly the batch.
 */
export function buildLogBatch(spec: LogBatchSpec): Buffer {
  checkSpec(spec)
  const magic = spec.magic ?? LOG_MAGIC_VALUE_V0
  const layout = layoutForMagic(magic)
  const hasVector = !spec.appendOnly && spec.vector !== false
  const vectorBytes = hasVector ? spec.recordCount : 0
  const size = layout.headerSize + vectorBytes + spec.records.length
  const buf = Buffer.alloc(size)
  writeInt64LE(buf, BASE_OFFSET_OFFSET, spec.baseOffset ?? 0)
  buf.writeInt32LE(size - LOG_OVERHEAD, LENGTH_OFFSET)
  buf.writeInt8(magic, MAGIC_OFFSET)
  writeInt64LE(buf, COMMIT_TIMESTAMP_OFFSET, spec.commitTimestamp ?? 0)
  if (layout.leaderEpochOffset >= 0)
    buf.writeInt32LE(spec.leaderEpoch ?? NO_LEADER_EPOCH, layout.leaderEpochOffset)
  buf.writeInt16LE(spec.schemaId, layout.schemaIdOffset)
  buf.writeUInt8(spec.appendOnly ? APPEND_ONLY_FLAG_MASK : 0, layout.attributesOffset)
  buf.writeInt32LE(spec.recordCount > 0 ? spec.recordCount - 1 : 0, layout.lastOffsetDeltaOffset)
  writeInt64LE(buf, layout.writerIdOffset, spec.writerId ?? NO_WRITER_ID)
  buf.writeInt32LE(spec.batchSequence ?? NO_BATCH_SEQUENCE, layout.batchSequenceOffset)
  buf.writeInt32LE(spec.recordCount, layout.recordCountOffset)
  let at = layout.headerSize
  if (hasVector) {
    for (const t of spec.changeTypes ?? []) buf[at++] = t
  }
  buf.set(spec.records, at)
  buf.writeUInt32LE(crc32c(buf.subarray(layout.schemaIdOffset)), layout.crcOffset)
  return buf
}
