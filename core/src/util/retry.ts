import { FlussError } from '../errors/index.js'
import { exponentialBackoffMs, halfJitteredMs } from './backoff.js'
import { sleep } from './sleep.js'

/** How `retry` repeats a failing operation. */
export interface RetryOptions {
  /** Attempts, the first included (>= 1). */
  readonly maxAttempts: number
  /** Whether a failure may go away on its own; other failures are thrown at once. */
  readonly retriable: (error: unknown) => boolean
  /** The wait after failed attempt `attempt` (1-based). */
  readonly delayMs: (attempt: number) => number
  /** Waits between attempts; `sleep` by default. */
  readonly sleep?: (ms: number) => Promise<void>
  /** Called before every attempt; throws to give up (a stopped task). */
  readonly beforeAttempt?: () => void
  /** Called after a failed attempt that will be retried, before the wait. */
  readonly onRetry?: (attempt: number, error: unknown) => void
}

/** Runs `op` until it succeeds, fails with a non-retriable error or has used its attempts. */
export async function retry<T>(op: () => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep
  for (let attempt = 1; ; attempt++) {
    options.beforeAttempt?.()
    try {
      return await op()
    } catch (e) {
      if (!options.retriable(e) || attempt >= options.maxAttempts) throw e
      options.onRetry?.(attempt, e)
      await wait(options.delayMs(attempt))
    }
  }
}

/** Fails with REQUEST_TIME_OUT when `op` has not settled within `timeoutMs`. */
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

/** Bounded, jittered exponential backoff of calls to the object store and the metadata store. */
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

/** `sleep` that does not keep the process alive: the default wait of background storage calls. */
export const realSleep = (ms: number): Promise<void> => sleep(ms, { unref: true })

/**
 * Whether a storage call's failure may go away on its own: retriable Fluss errors (storage,
 * timeouts, network) except a lost conditional write, which needs a fresh read rather than a repeat.
 */
export function isRetriable(e: unknown): boolean {
  return e instanceof FlussError && e.retriable && !e.is('METASTORE_CONFLICT')
}

/** Backoff after failed attempt `attempt`: doubling from the initial value, capped, half jittered. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  return halfJitteredMs(exponentialBackoffMs(attempt, policy.initialBackoffMs, policy.maxBackoffMs), random)
}

/**
 * Runs the storage call `op` with a timeout per attempt, retrying retriable failures with backoff.
 * Once `hooks.isCancelled()` the call fails with NOT_LEADER_OR_FOLLOWER (`<what>: <stopped>`): the
 * task that made it no longer owns its bucket.
 */
export async function withRetry<T>(
  what: string,
  policy: RetryPolicy,
  hooks: RetryHooks,
  op: () => Promise<T>,
  stopped = 'stopped',
): Promise<T> {
  return retry(() => withTimeout(what, policy.operationTimeoutMs, op), {
    maxAttempts: policy.maxAttempts,
    retriable: isRetriable,
    delayMs: attempt => backoffMs(policy, attempt, hooks.random),
    sleep: hooks.sleep,
    beforeAttempt: () => {
      if (hooks.isCancelled()) throw new FlussError('NOT_LEADER_OR_FOLLOWER', `${what}: ${stopped}`)
    },
    onRetry: (attempt, error) => hooks.onRetry(what, attempt, error as FlussError),
  })
}
