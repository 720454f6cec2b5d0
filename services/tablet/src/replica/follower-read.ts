import { batchBoundaryAt, LogRecordBatch } from '@sluice/core/record'

/**
 * The whole batches of `records` (as a log read returns them) that start below `endOffset`. A
 * leader serves a follower that has not yet learned where the current leader epoch began only the
 * records before it, so the follower never appends records of an epoch it cannot attribute.
 */
export function batchesBelow(records: Buffer, endOffset: number): Buffer {
  let position = 0
  while (position < records.length) {
    const boundary = batchBoundaryAt(records, position)
    if (!boundary.ok) break
    if (new LogRecordBatch(records, position).baseOffset >= endOffset) break
    position += boundary.size
  }
  return position === records.length ? records : records.subarray(0, position)
}
