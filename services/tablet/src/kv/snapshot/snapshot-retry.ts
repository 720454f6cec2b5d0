import { FlussError } from '@sluice/core/errors'
import { backoffMs, isRetriable, type RetryPolicy, withTimeout } from '../../remote/retry.js'

/** Runs one BlobStore or MetaStore call of the KV snapshots with a timeout and retries. */
export type SnapshotCall = <T>(what: string, op: () => Promise<T>) => Promise<T>

export interface SnapshotRetryHooks {
  readonly sleep: (ms: number) => Promise<void>
  readonly random: () => number
  /** Checked before every attempt: a stopped snapshot task gives up at once. */
  readonly isCancelled: () => boolean
  readonly onRetry: (what: string, attempt: number, error: FlussError) => void
}

/**
 * A call runner: each attempt is bounded by `operationTimeoutMs`; retriable failures (storage
 * errors, timeouts, network) are retried with jittered exponential backoff up to `maxAttempts`.
 */
export function retryingCall(name: string, policy: RetryPolicy, hooks: SnapshotRetryHooks): SnapshotCall {
  return async (what, op) => {
    for (let attempt = 1; ; attempt++) {
      if (hooks.isCancelled())
        throw new FlussError('NOT_LEADER_OR_FOLLOWER', `${what}: the KV snapshots of ${name} were stopped`)
      try {
        return await withTimeout(what, policy.operationTimeoutMs, op)
      } catch (e) {
        if (!isRetriable(e) || attempt >= policy.maxAttempts) throw e
        hooks.onRetry(what, attempt, e as FlussError)
        await hooks.sleep(backoffMs(policy, attempt, hooks.random))
      }
    }
  }
}
