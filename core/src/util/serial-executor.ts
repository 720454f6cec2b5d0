import { assert, FlussError } from '../errors/index.js'

/**
 * Runs async tasks one at a time in submission order: the tasks of one owner (a bucket's
 * mutations, the coordinator's state changes) never interleave. At most `maxQueued` tasks may be
 * waiting or running; more are refused with RESOURCE_EXHAUSTED (retriable). After `close` every
 * submission fails with SHUTTING_DOWN. A task must not submit to the same executor and wait for the
 * result: it would wait for itself.
 */
export class SerialExecutor {
  #tail: Promise<void> = Promise.resolve()
  #queued = 0
  #closed = false

  constructor(
    readonly maxQueued: number,
    readonly name = 'serial executor',
  ) {
    assert(Number.isInteger(maxQueued) && maxQueued > 0, `${name}: maxQueued must be a positive integer`)
  }

  /** Tasks waiting or running. */
  get queued(): number {
    return this.#queued
  }

  /** Queues `task`; `unbounded` skips the bound (for close, which must always be possible). */
  run<T>(task: () => Promise<T> | T, unbounded = false): Promise<T> {
    if (this.#closed) return Promise.reject(new FlussError('SHUTTING_DOWN', `${this.name} is shutting down`))
    if (!unbounded && this.#queued >= this.maxQueued) {
      return Promise.reject(
        new FlussError(
          'RESOURCE_EXHAUSTED',
          `${this.name}: ${this.#queued} operations already queued (max ${this.maxQueued})`,
        ),
      )
    }
    this.#queued++
    const result = this.#tail.then(() => task())
    const done = () => {
      this.#queued--
    }
    this.#tail = result.then(done, done)
    return result
  }

  /** Refuses new tasks and waits for the queued ones. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#tail
  }
}
