import { type RetryHooks, type RetryPolicy, withRetry } from '@sluice/core/util'

/** Runs one BlobStore or MetaStore call of the KV snapshots with a timeout and retries. */
export type SnapshotCall = <T>(what: string, op: () => Promise<T>) => Promise<T>

/**
 * A call runner: each attempt is bounded by `operationTimeoutMs`; retriable failures (storage
 * errors, timeouts, network) are retried with jittered exponential backoff up to `maxAttempts`.
 */
export function retryingCall(name: string, policy: RetryPolicy, hooks: RetryHooks): SnapshotCall {
  return (what, op) => withRetry(what, policy, hooks, op, `the KV snapshots of ${name} were stopped`)
}
