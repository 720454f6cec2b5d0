import { assert, FlussError } from '@sluice/core/errors'

interface Waiter {
  readonly exclusive: boolean
  readonly grant: () => void
}

/**
 * Many concurrent holders of the shared side (reads) or one holder of the exclusive side (changes
 * that move or remove bytes under readers: truncation, segment deletion, close). Waiting exclusive
 * requests block new shared ones, so a steady stream of reads cannot starve a truncation. At most
 * `maxWaiting` requests may wait; more are refused with RESOURCE_EXHAUSTED.
 */
export class ReadWriteLock {
  #readers = 0
  #writer = false
  readonly #waiting: Waiter[] = []

  constructor(readonly maxWaiting: number) {
    assert(Number.isInteger(maxWaiting) && maxWaiting > 0, 'maxWaiting must be a positive integer')
  }

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire(false)
    try {
      return await fn()
    } finally {
      this.#readers--
      this.#drain()
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire(true)
    try {
      return await fn()
    } finally {
      this.#writer = false
      this.#drain()
    }
  }

  #acquire(exclusive: boolean): Promise<void> {
    if (this.#waiting.length === 0 && this.#canGrant(exclusive)) {
      this.#take(exclusive)
      return Promise.resolve()
    }
    if (this.#waiting.length >= this.maxWaiting) {
      return Promise.reject(
        new FlussError('RESOURCE_EXHAUSTED', `${this.#waiting.length} log operations already waiting`),
      )
    }
    return new Promise(resolve => this.#waiting.push({ exclusive, grant: resolve }))
  }

  #canGrant(exclusive: boolean): boolean {
    return exclusive ? !this.#writer && this.#readers === 0 : !this.#writer
  }

  #take(exclusive: boolean): void {
    if (exclusive) this.#writer = true
    else this.#readers++
  }

  #drain(): void {
    while (this.#waiting.length > 0 && this.#canGrant(this.#waiting[0].exclusive)) {
      const next = this.#waiting.shift() as Waiter
      this.#take(next.exclusive)
      next.grant()
    }
  }
}
