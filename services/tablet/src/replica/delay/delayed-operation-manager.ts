import { assert } from '@sluice/core/errors'
import type { DelayedOperation } from './delayed-operation.js'

/**
 * Holds delayed operations by the keys (bucket keys) they watch, with a timer each (Fluss's
 * `DelayedOperationManager`, without the timing wheel: Node timers are cheap enough here). At most
 * `maxOperations` are watched at once.
 */
export class DelayedOperationManager<T extends DelayedOperation> {
  readonly #watchers = new Map<string, Set<T>>()
  readonly #timers = new Map<T, NodeJS.Timeout>()

  constructor(
    readonly name: string,
    readonly maxOperations: number,
  ) {
    assert(
      Number.isInteger(maxOperations) && maxOperations > 0,
      `${name}: bad maxOperations ${maxOperations}`,
    )
  }

  /** Operations waiting. */
  get watched(): number {
    return this.#timers.size
  }

  /** Whether another operation may be watched now. */
  get hasRoom(): boolean {
    return this.#timers.size < this.maxOperations
  }

  /**
   * Completes `op` now if it can; otherwise watches it under `keys` until it completes or its delay
   * passes. The caller checks `hasRoom` first.
   */
  tryCompleteElseWatch(op: T, keys: readonly string[]): void {
    if (op.tryComplete()) return
    assert(this.hasRoom, `${this.name}: already ${this.#timers.size} operations watched`)
    for (const key of keys) {
      let set = this.#watchers.get(key)
      if (set === undefined) {
        set = new Set()
        this.#watchers.set(key, set)
      }
      set.add(op)
    }
    op.setOnCompleted(() => this.#unwatch(op, keys))
    const timer = setTimeout(() => op.expire(), op.delayMs)
    timer.unref()
    this.#timers.set(op, timer)
    // A watched bucket may have changed between the first check and now (nothing awaits between
    // them today, but keep the check cheap and robust).
    op.tryComplete()
  }

  /** Re-checks every operation watching `key`; returns how many completed. */
  checkAndComplete(key: string): number {
    const set = this.#watchers.get(key)
    if (set === undefined) return 0
    let completed = 0
    for (const op of [...set]) if (!op.isCompleted && op.tryComplete()) completed++
    return completed
  }

  /** Completes every watched operation now (shutdown). */
  completeAll(): void {
    for (const op of [...this.#timers.keys()]) op.forceComplete()
  }

  #unwatch(op: T, keys: readonly string[]): void {
    const timer = this.#timers.get(op)
    if (timer !== undefined) clearTimeout(timer)
    this.#timers.delete(op)
    for (const key of keys) {
      const set = this.#watchers.get(key)
      if (set === undefined) continue
      set.delete(op)
      if (set.size === 0) this.#watchers.delete(key)
    }
  }
}
