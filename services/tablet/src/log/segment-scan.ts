import type { LogRecordBatch } from '@sluice/core/record'
import { FileBatchScanner, type ScanStop } from './file-batch-scanner.js'
import type { LogFileHandle } from './file-io.js'
import type { SegmentIndexes } from './segment-indexes.js'
import type { TimestampOffset } from './time-index.js'

export interface ScanOptions {
  /** Validate every batch (CRC, counts); needs whole batches in memory. */
  readonly validate: boolean
  /** Add index entries while scanning (the scan must start at position 0 with empty indexes). */
  readonly indexes: SegmentIndexes | null
  readonly indexIntervalBytes: number
  readonly chunkBytes: number
  /** The lowest base offset the first batch may have. */
  readonly minBaseOffset: number
}

export interface ScanSummary {
  /** Position after the last good batch. */
  readonly validBytes: number
  /** Offset after the last good batch, or null when the range held no batch. */
  readonly nextOffset: number | null
  /** Greatest commit timestamp seen, and the base offset of the first batch that reached it. */
  readonly maxTimestamp: TimestampOffset | null
  readonly firstTimestamp: number | null
  /** Bytes appended since the last offset-index entry (only meaningful when indexing). */
  readonly bytesSinceLastIndexEntry: number
  readonly stop: ScanStop
}

/**
 * Scans a segment file from `start` to `end`, checking that batches are well formed (and valid, if
 * asked) and that offsets grow; stops at the first batch that is not. Used by recovery, by index
 * rebuilding and to find the end offset and max timestamp of a loaded segment.
 */
export async function scanSegment(
  file: LogFileHandle,
  start: number,
  end: number,
  options: ScanOptions,
): Promise<ScanSummary> {
  const scanner = new FileBatchScanner(file, start, end, options.chunkBytes, options.validate)
  let nextOffset: number | null = null
  let maxTimestamp: TimestampOffset | null = null
  let firstTimestamp: number | null = null
  let sinceIndex = 0
  let stopOverride: ScanStop | null = null
  for (let item = await scanner.next(); item; item = await scanner.next()) {
    const { batch, position } = item
    const problem = batchProblem(batch, options.validate, nextOffset ?? options.minBaseOffset)
    if (problem) {
      stopOverride = { position, reason: 'corrupt', message: problem }
      break
    }
    const timestamp = batch.commitTimestamp
    if (maxTimestamp === null || timestamp > maxTimestamp.timestamp) {
      maxTimestamp = { timestamp, offset: batch.baseOffset }
    }
    firstTimestamp ??= timestamp
    const index = options.indexes
    if (index && sinceIndex > options.indexIntervalBytes && !index.offsetIndex.isFull) {
      index.offsetIndex.append(batch.lastOffset, position)
      index.timeIndex.maybeAppend(maxTimestamp.timestamp, maxTimestamp.offset)
      sinceIndex = 0
    }
    sinceIndex += item.sizeInBytes
    nextOffset = batch.nextOffset
  }
  const stop = stopOverride ?? scanner.stop ?? { position: scanner.position, reason: 'end', message: '' }
  return {
    validBytes: stop.position,
    nextOffset,
    maxTimestamp,
    firstTimestamp,
    bytesSinceLastIndexEntry: sinceIndex,
    stop,
  }
}

function batchProblem(batch: LogRecordBatch, validate: boolean, minBaseOffset: number): string | null {
  if (validate) {
    try {
      batch.validate()
    } catch (e) {
      return (e as Error).message
    }
  }
  if (batch.baseOffset < minBaseOffset) {
    return `batch base offset ${batch.baseOffset} is below the expected ${minBaseOffset}`
  }
  if (batch.lastOffsetDelta < 0) return `batch lastOffsetDelta ${batch.lastOffsetDelta} is negative`
  return null
}
