import { type Clock, exponentialBackoffMs } from '@sluice/core/util'

export interface RetryBackoff {
  /** Wait after the first failure. */
  readonly initialMs: number
  /** Longest wait; the wait doubles per failure up to it. */
  readonly maxMs: number
}

type BootState<T> =
  | { readonly kind: 'idle' }
  | { readonly kind: 'booting'; readonly promise: Promise<T> }
  | { readonly kind: 'up'; readonly value: T }
  | {
      readonly kind: 'failed'
      readonly error: unknown
      readonly failures: number
      readonly retryAtMs: number
    }

/**
 * Something a process makes once and keeps (a Lambda container's app and its SDK connection):
 * made on demand, at most one attempt at a time, and after a failed attempt not tried again before
 * a backoff (doubling per failure, bounded) has passed.
 */
export class BootOnce<T> {
  #state: BootState<T> = { kind: 'idle' }

  constructor(
    private readonly boot: () => Promise<T>,
    private readonly backoff: RetryBackoff,
    private readonly clock: Clock,
    private readonly onFailure: (error: unknown, retryInMs: number) => void = () => {},
  ) {}

  /** The value once made. */
  get value(): T | undefined {
    return this.#state.kind === 'up' ? this.#state.value : undefined
  }

  /** True while an attempt runs. */
  get booting(): boolean {
    return this.#state.kind === 'booting'
  }

  /** The error of the last failed attempt, while no later attempt has run. */
  get lastError(): unknown {
    return this.#state.kind === 'failed' ? this.#state.error : undefined
  }

  /** Whole seconds until the next attempt is allowed (at least 1). */
  retryAfterSec(): number {
    const s = this.#state
    const waitMs = s.kind === 'failed' ? s.retryAtMs - this.clock.nowMs() : 0
    return Math.max(1, Math.ceil(waitMs / 1000))
  }

  /**
   * The running attempt, or a new one when none runs and the backoff has passed (the value at
   * once when made); undefined while backing off after a failure.
   */
  start(): Promise<T> | undefined {
    const s = this.#state
    if (s.kind === 'up') return Promise.resolve(s.value)
    if (s.kind === 'booting') return s.promise
    if (s.kind === 'failed' && this.clock.nowMs() < s.retryAtMs) return undefined
    const failures = s.kind === 'failed' ? s.failures : 0
    const promise = Promise.resolve()
      .then(() => this.boot())
      .then(
        value => {
          this.#state = { kind: 'up', value }
          return value
        },
        error => {
          const waitMs = exponentialBackoffMs(failures + 1, this.backoff.initialMs, this.backoff.maxMs)
          this.#state = {
            kind: 'failed',
            error,
            failures: failures + 1,
            retryAtMs: this.clock.nowMs() + waitMs,
          }
          this.onFailure(error, waitMs)
          throw error
        },
      )
    this.#state = { kind: 'booting', promise }
    return promise
  }
}
