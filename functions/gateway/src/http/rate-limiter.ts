import type { Clock } from '@sluice/core/util'

/**
 * A token bucket refilled at `ratePerSecond` and holding at most one second's worth. A request
 * larger than the bucket is let through when the bucket is full, leaving it in debt, so big requests
 * are slowed rather than refused forever.
 */
export class TokenBucket {
  #tokens: number
  #lastMs: number

  constructor(
    readonly ratePerSecond: number,
    private readonly clock: Clock,
  ) {
    this.#tokens = ratePerSecond
    this.#lastMs = clock.nowMs()
  }

  /** Takes `n` tokens; returns 0 on success, else the seconds to wait before retrying. */
  tryTake(n: number): number {
    const now = this.clock.nowMs()
    this.#tokens = Math.min(
      this.ratePerSecond,
      this.#tokens + ((now - this.#lastMs) / 1000) * this.ratePerSecond,
    )
    this.#lastMs = now
    const needed = Math.min(n, this.ratePerSecond)
    if (this.#tokens >= needed) {
      this.#tokens -= n
      return 0
    }
    return Math.max(1, Math.ceil((needed - this.#tokens) / this.ratePerSecond))
  }

  /** Returns tokens taken for a request that was then refused for another reason. */
  giveBack(n: number): void {
    this.#tokens = Math.min(this.ratePerSecond, this.#tokens + n)
  }
}

/** At most `max` holders at once. */
export class ConcurrencyLimiter {
  #active = 0

  constructor(readonly max: number) {}

  get active(): number {
    return this.#active
  }

  tryAcquire(): boolean {
    if (this.#active >= this.max) return false
    this.#active++
    return true
  }

  release(): void {
    this.#active--
  }
}
