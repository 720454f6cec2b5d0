/**
 * Counts failed authentications per client address in a sliding window. Once an address reaches
 * `maxFailures` within `windowMs`, it is blocked until its oldest counted failure leaves the window.
 * Bounded: at most `maxAddresses` addresses are tracked (the stalest are forgotten first).
 */
export interface FailureLimiterOptions {
  readonly maxFailures: number
  readonly windowMs: number
  readonly maxAddresses?: number
  readonly nowMs?: () => number
}

export class FailureLimiter {
  readonly #failures = new Map<string, number[]>()
  readonly #options: Required<FailureLimiterOptions>

  constructor(options: FailureLimiterOptions) {
    this.#options = { maxAddresses: 10_000, nowMs: Date.now, ...options }
  }

  /** Milliseconds until `address` may try again; 0 when it is not blocked. */
  blockedForMs(address: string): number {
    const times = this.#recent(address)
    if (times.length < this.#options.maxFailures) return 0
    return Math.max(
      1,
      times[times.length - this.#options.maxFailures] + this.#options.windowMs - this.#options.nowMs(),
    )
  }

  recordFailure(address: string): void {
    const times = this.#recent(address)
    times.push(this.#options.nowMs())
    if (times.length > this.#options.maxFailures) times.splice(0, times.length - this.#options.maxFailures)
    this.#failures.delete(address)
    this.#failures.set(address, times)
    while (this.#failures.size > this.#options.maxAddresses) {
      const oldest = this.#failures.keys().next().value as string
      this.#failures.delete(oldest)
    }
  }

  /** Tracked addresses (for tests and metrics). */
  get size(): number {
    return this.#failures.size
  }

  #recent(address: string): number[] {
    const times = this.#failures.get(address)
    if (times === undefined) return []
    const cutoff = this.#options.nowMs() - this.#options.windowMs
    while (times.length > 0 && times[0] <= cutoff) times.shift()
    if (times.length === 0) this.#failures.delete(address)
    return times
  }
}
