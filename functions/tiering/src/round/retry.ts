import { FlussError, isFlussError } from '@sluice/core/errors'
import { exponentialBackoffMs, retry } from '@sluice/core/util'

/**
 * Runs `op` up to `attempts` times while it fails with a retriable error (an object-store or
 * metadata-store hiccup: a retriable FlussError or a non-Fluss error from an SDK), waiting
 * `backoffMs`, doubled each time, in between. Other errors fail at once.
 */
export function withRetries<T>(attempts: number, backoffMs: number, op: () => Promise<T>): Promise<T> {
  return retry(op, {
    maxAttempts: attempts,
    retriable: isTransient,
    delayMs: attempt => exponentialBackoffMs(attempt, backoffMs),
  })
}

export function isTransient(e: unknown): boolean {
  if (e instanceof FlussError) return e.retriable && !isFlussError(e, 'LAKE_COMMIT_CONFLICT')
  return e instanceof Error && !(e instanceof TypeError || e instanceof RangeError)
}
