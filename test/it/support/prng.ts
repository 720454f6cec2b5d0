/** A small seeded PRNG (mulberry32) so that fuzz and crash tests are reproducible from their seed. */
export class Prng {
  #state: number

  constructor(readonly seed: number) {
    this.#state = seed >>> 0
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let t = this.#state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n)
    for (let i = 0; i < n; i++) b[i] = this.int(0, 255)
    return b
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]
  }
}
