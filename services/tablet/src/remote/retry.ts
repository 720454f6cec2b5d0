import { FlussError } from '@sluice/core/errors'

/** Bounded exponential backoff for BlobStore and MetaStore calls of the remote log. */
export interface RetryPolicy {
  /** Attempts per call, the first included (>= 1). */
  readonly maxAttempts: number
  readonly initialBackoffMs: number
  readonly maxBackoffMs: number
  /** A call still pending after this long fails with REQUEST_TIME_OUT (and may be retried). */
  readonly operationTimeoutMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 10_000,
  operationTimeoutMs: 10 * 60_000,
}

export interface RetryHooks {
  readonly sleep: (ms: number) => Promise<void>
  readonly random: () => number
  /** Checked before every attempt: a stopped task gives up at once. */
  readonly isCancelled: () => boolean
  readonly onRetry: (what: string, attempt: number, error: FlussError) => void
}

export const realSleep = (ms: number): Promise<void> =>
  new Promise(resolve => setTimeout(resolve, ms).unref())

/**
 * Whether a failure may go away on its own: retriable Fluss errors (storage, timeouts, network)
 * except a lost conditional write, which needs a fresh read rather than a repeat.
 */
export function isRetriable(e: unknown): boolean {
  return e instanceof FlussError && e.retriable && !e.is('METASTORE_CONFLICT')
}

/** Backoff before attempt `attempt + 1`: doubling from the initial value, capped, half jittered. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  const base = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempt - 1))
  return Math.round(base / 2 + (base / 2) * random())
}

export async function withTimeout<T>(what: string, timeoutMs: number, op: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FlussError('REQUEST_TIME_OUT', `${what} did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    )
    timer.unref()
  })
  try {
    return await Promise.race([op(), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Runs `op` with a timeout per attempt, retrying retriable failures with backoff. */
export async function withRetry<T>(
  what: string,
  policy: RetryPolicy,
  hooks: RetryHooks,
  op: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (hooks.isCancelled())
      throw new FlussError('NOT_LEADER_OR_FOLLOWER', `${what}: remote log task stopped`)
    try {
      return await withTimeout(what, policy.operationTimeoutMs, op)
    } catch (e) {
      if (!isRetriable(e) || attempt >= policy.maxAttempts) throw e
      hooks.onRetry(what, attempt, e as FlussError)
      await hooks.sleep(backoffMs(policy, attempt, hooks.random))
    }
  }
}
