import { FlussError, isFlussError } from '@sluice/core/errors'

/**
 * Runs `op` up to `attempts` times while it fails with a retriable error (an object-store or
 * metadata-store hiccup: a retriable FlussError or a non-Fluss error from an SDK), waiting
 * `backoffMs`, doubled each time, in between. Other errors fail at once.
 */
export async function withRetries<T>(attempts: number, backoffMs: number, op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op()
    } catch (e) {
      if (attempt >= attempts || !isTransient(e)) throw e
      await sleep(backoffMs * 2 ** (attempt - 1))
    }
  }
}

export function isTransient(e: unknown): boolean {
  if (e instanceof FlussError) return e.retriable && !isFlussError(e, 'LAKE_COMMIT_CONFLICT')
  return e instanceof Error && !(e instanceof TypeError || e instanceof RangeError)
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}
