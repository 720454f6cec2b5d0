import { type Deferred, deferred } from '../util/async.js'

/**
 * The byte budget of buffered, unacknowledged rows (`client.writer.buffer.memory-size`), shared by
 * every writer of a connection. Writers account bytes as rows are encoded and release them when
 * batches are acknowledged or fail. Going over the budget is allowed by one row per writer: the
 * writer then waits for room before taking more rows.
 */
export class WriterMemory {
  #usedBytes = 0
  readonly #waiters: Deferred<void>[] = []

  constructor(readonly limitBytes: number) {}

  get usedBytes(): number {
    return this.#usedBytes
  }

  get isFull(): boolean {
    return this.#usedBytes >= this.limitBytes
  }

  /** Changes the accounted bytes by `deltaBytes` (negative releases). */
  adjust(deltaBytes: number): void {
    this.#usedBytes += deltaBytes
    if (deltaBytes < 0 && !this.isFull && this.#waiters.length > 0) {
      for (const w of this.#waiters.splice(0)) w.resolve()
    }
  }

  /** Resolves once usage is below the limit. At most one waiter per writer (writers enforce it). */
  waitForRoom(): Promise<void> {
    if (!this.isFull) return Promise.resolve()
    const waiter = deferred()
    this.#waiters.push(waiter)
    return waiter.promise
  }
}
