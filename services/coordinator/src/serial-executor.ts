import { FlussError } from '@sluice/core/errors'

/**
 * Runs tasks one at a time in submission order: the coordinator's single event thread. Every state
 * change (DDL, membership, elections, repairs) goes through it, so none interleave. At most
 * `maxQueued` tasks wait; beyond it submissions fail with RESOURCE_EXHAUSTED.
 */
export class SerialExecutor {
  readonly #maxQueued: number
  #tail: Promise<unknown> = Promise.resolve()
  #queued = 0
  #closed = false

  constructor(maxQueued: number) {
    this.#maxQueued = maxQueued
  }

  get queued(): number {
    return this.#queued
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed)
      return Promise.reject(new FlussError('SHUTTING_DOWN', 'the coordinator is shutting down'))
    if (this.#queued >= this.#maxQueued) {
      return Promise.reject(
        new FlussError('RESOURCE_EXHAUSTED', `${this.#queued} coordinator events are already queued`),
      )
    }
    this.#queued++
    const result = this.#tail.then(() => task())
    this.#tail = result.then(
      () => this.#queued--,
      () => this.#queued--,
    )
    return result
  }

  /** Refuses new tasks and waits for the queued ones. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#tail
  }
}
