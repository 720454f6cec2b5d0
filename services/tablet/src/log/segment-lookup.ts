import { FlussError } from '@sluice/core/errors'
import { batchBoundaryAt, LogRecordBatch } from '@sluice/core/record'
import { FileBatchScanner, type ScannedBatch } from './file-batch-scanner.js'
import type { LogFileHandle } from './file-io.js'

/** A byte range of a segment file to walk. */
export interface SegmentRange {
  readonly file: LogFileHandle
  readonly start: number
  readonly end: number
  readonly chunkBytes: number
}

/** A batch found in a segment (copied out of the scanner's buffer). */
export interface FoundBatch {
  readonly position: number
  readonly sizeInBytes: number
  readonly baseOffset: number
  readonly lastOffset: number
  readonly commitTimestamp: number
}

/**
 * Walks batch headers in `range` and returns the first batch for which `stop` is true, or null at
 * the end of the range. A malformed batch inside the range means the segment is damaged:
 * LOG_STORAGE_EXCEPTION.
 */
export async function findBatch(
  range: SegmentRange,
  stop: (item: ScannedBatch) => boolean,
): Promise<FoundBatch | null> {
  const scanner = new FileBatchScanner(range.file, range.start, range.end, range.chunkBytes, false)
  for (let item = await scanner.next(); item; item = await scanner.next()) {
    if (stop(item)) {
      const { batch } = item
      return {
        position: item.position,
        sizeInBytes: item.sizeInBytes,
        baseOffset: batch.baseOffset,
        lastOffset: batch.lastOffset,
        commitTimestamp: batch.commitTimestamp,
      }
    }
  }
  const halt = scanner.stop
  if (halt && halt.reason !== 'end') {
    throw new FlussError(
      'LOG_STORAGE_EXCEPTION',
      `segment ${range.file.path} is damaged at position ${halt.position}: ${halt.message}`,
    )
  }
  return null
}

/** Bytes of the whole batches at the start of `raw` that end below `maxOffset`. */
export function visiblePrefix(raw: Buffer, maxOffset: number): number {
  let position = 0
  while (position < raw.length) {
    const boundary = batchBoundaryAt(raw, position)
    if (!boundary.ok || new LogRecordBatch(raw, position).lastOffset >= maxOffset) break
    position += boundary.size
  }
  return position
}
