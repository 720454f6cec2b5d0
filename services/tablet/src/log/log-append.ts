import { FlussError } from '@sluice/core/errors'
import { asBuffer, type LogRecordBatch, MemoryLogRecords } from '@sluice/core/record'
import type { BatchPlacement } from './log-segment.js'

/** A produce or replication request whose batches all passed validation. */
export interface ValidatedRecords {
  readonly buffer: Buffer
  readonly batches: readonly LogRecordBatch[]
}

/**
 * Validates every batch of a request (framing, magic, CRC, counts): all or nothing, so a bad batch
 * anywhere refuses the whole request before anything is written. A request larger than a segment
 * can never be stored: RECORD_TOO_LARGE_EXCEPTION.
 */
export function validateRecords(records: Uint8Array, segmentBytes: number, name: string): ValidatedRecords {
  const buffer = asBuffer(records)
  if (buffer.length === 0) throw new FlussError('CORRUPT_RECORD_EXCEPTION', `empty records for ${name}`)
  if (buffer.length > segmentBytes) {
    throw new FlussError(
      'RECORD_TOO_LARGE_EXCEPTION',
      `records of ${buffer.length} bytes exceed the segment size ${segmentBytes} of ${name}`,
    )
  }
  try {
    return { buffer, batches: new MemoryLogRecords(buffer).validateAll() }
  } catch (e) {
    if (e instanceof FlussError) throw new FlussError(e.spec, `${name}: ${e.message}`)
    throw e
  }
}

/** Leader side: patches dense offsets from `nextOffset` and one commit timestamp into every batch. */
export function assignOffsetsAndTimestamp(
  batches: readonly LogRecordBatch[],
  nextOffset: number,
  timestampMs: number,
): void {
  let next = nextOffset
  for (const batch of batches) {
    batch.setBaseOffset(next)
    batch.setCommitTimestamp(timestampMs)
    next = batch.nextOffset
  }
}

/**
 * Follower side: the batches must continue the log exactly (first base offset = log end offset,
 * each batch starting where the previous ended). Returns their greatest commit timestamp.
 */
export function checkFollowerBatches(
  batches: readonly LogRecordBatch[],
  logEndOffset: number,
  name: string,
): number {
  if (batches[0].baseOffset !== logEndOffset) {
    throw new FlussError(
      'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
      `follower append to ${name} starts at offset ${batches[0].baseOffset}, log end offset is ${logEndOffset}`,
    )
  }
  let maxTimestamp = -1
  for (let i = 0; i < batches.length; i++) {
    if (i > 0 && batches[i].baseOffset !== batches[i - 1].nextOffset) {
      throw new FlussError(
        'CORRUPT_RECORD_EXCEPTION',
        `follower batches of ${name} are not contiguous at batch ${i}`,
      )
    }
    maxTimestamp = Math.max(maxTimestamp, batches[i].commitTimestamp)
  }
  return maxTimestamp
}

export function placementsOf(batches: readonly LogRecordBatch[]): BatchPlacement[] {
  return batches.map(b => ({
    position: b.position,
    sizeInBytes: b.sizeInBytes,
    baseOffset: b.baseOffset,
    lastOffset: b.lastOffset,
    commitTimestamp: b.commitTimestamp,
  }))
}
