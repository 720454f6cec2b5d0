import { assert } from '@sluice/core/errors'

/**
 * A request parked until a condition on some buckets holds (Fluss's `DelayedOperation`): an
 * acks=all write waiting for the high watermark, a long-poll fetch waiting for data. `tryComplete`
 * is called whenever a watched bucket changes; it calls `forceComplete` once the condition holds.
 * On timeout the manager calls `onExpiration` and then `forceComplete`.
 */
export abstract class DelayedOperation {
  #completed = false
  #onCompleted: (() => void) | undefined

  constructor(readonly delayMs: number) {
    assert(Number.isFinite(delayMs) && delayMs >= 0, `bad delay ${delayMs}`)
  }

  get isCompleted(): boolean {
    return this.#completed
  }

  /** Checks the condition; completes the operation (and returns true) if it holds. */
  abstract tryComplete(): boolean

  /** Runs once, when the operation completes (condition met, expired or forced). */
  protected abstract onComplete(): void

  /** Runs before `onComplete` when the operation timed out. */
  protected onExpiration(): void {}

  /** Completes now unless already completed; true if this call completed it. */
  forceComplete(): boolean {
    if (this.#completed) return false
    this.#completed = true
    this.#onCompleted?.()
    this.onComplete()
    return true
  }

  /** Called by the manager when the delay has passed. */
  expire(): void {
    if (this.#completed) return
    this.onExpiration()
    this.forceComplete()
  }

  /** The manager's hook to unwatch the operation when it completes. */
  setOnCompleted(hook: () => void): void {
    this.#onCompleted = hook
  }
}
