import type { KvTablet } from './kv-tablet.js'

/** The part of a LogTablet whose high watermark a leader moves. */
export interface HighWatermarkLog {
  readonly highWatermark: number
  readonly logEndOffset: number
  maybeIncrementHighWatermark(highWatermark: number): boolean
}

/**
 * Moves a primary-key bucket's high watermark to `candidate` (the smallest log end offset over the
 * ISR), but never past what the KvTablet has flushed: the pre-write buffer is flushed up to the
 * candidate first, so when an acks=all write completes, lookups already see it (Fluss clamps
 * HW <= KV flushed offset). Log-table buckets (`kv` null) move straight to the candidate.
 * Returns whether the high watermark moved.
 */
export async function maybeIncrementHighWatermark(
  log: HighWatermarkLog,
  kv: KvTablet | null,
  candidate: number,
): Promise<boolean> {
  const target = Math.min(candidate, log.logEndOffset)
  if (target <= log.highWatermark) return false
  const flushed = kv === null || kv.isClosed ? target : await kv.flush(target)
  const highWatermark = Math.min(target, flushed)
  return highWatermark > log.highWatermark && log.maybeIncrementHighWatermark(highWatermark)
}
