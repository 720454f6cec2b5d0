import { assert } from '@sluice/core/errors'

const INITIAL_CAPACITY = 64

/** A growable column of numbers: int32 (offsets, positions) or float64 (timestamps). */
type Column = Int32Array | Float64Array

/**
 * What the offset index and the time index share: entries of one segment held in memory as two
 * parallel columns (a search key that only grows, and a value), at most `maxEntries` of them,
 * searched by the greatest key at or below a target, cut back by offset, and written to or read
 * from fixed-size big-endian records. Each index says what its key and value mean.
 */
export abstract class SparseIndex<Entry extends { readonly offset: number }> {
  #keys: Column
  #values: Int32Array
  #count = 0

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
    keyColumn: 'int32' | 'float64',
    what: string,
  ) {
    assert(maxEntries > 0, `${what} needs room for at least one entry`)
    this.#keys = keyColumn === 'int32' ? new Int32Array(INITIAL_CAPACITY) : new Float64Array(INITIAL_CAPACITY)
    this.#values = new Int32Array(INITIAL_CAPACITY)
  }

  get entries(): number {
    return this.#count
  }

  get isFull(): boolean {
    return this.#count >= this.maxEntries
  }

  /** Drops entries pointing at or above `offset` (their batches are cut by truncating the log). */
  truncateTo(offset: number): void {
    while (this.#count > 0 && this.entryAt(this.#count - 1).offset >= offset) this.#count--
  }

  reset(): void {
    this.#count = 0
  }

  /** The entry `i` built from its key and value. */
  protected abstract entryOf(key: number, value: number): Entry

  protected entryAt(i: number): Entry {
    return this.entryOf(this.#keys[i], this.#values[i])
  }

  /** The index of the greatest entry whose key is <= `key`, -1 when there is none. */
  protected floor(key: number): number {
    let lo = 0
    let hi = this.#count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.#keys[mid] <= key) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found
  }

  protected push(key: number, value: number): void {
    this.#grow()
    this.#keys[this.#count] = key
    this.#values[this.#count] = value
    this.#count++
  }

  /** The entries as file bytes: `entryBytes` per entry, each written by `write`. */
  protected serialize(
    entryBytes: number,
    write: (out: Buffer, at: number, key: number, value: number) => void,
  ): Buffer {
    const out = Buffer.alloc(this.#count * entryBytes)
    for (let i = 0; i < this.#count; i++) write(out, i * entryBytes, this.#keys[i], this.#values[i])
    return out
  }

  #grow(): void {
    if (this.#count < this.#keys.length) return
    const capacity = Math.min(this.maxEntries, this.#keys.length * 2)
    const keys = this.#keys instanceof Int32Array ? new Int32Array(capacity) : new Float64Array(capacity)
    const values = new Int32Array(capacity)
    keys.set(this.#keys)
    values.set(this.#values)
    this.#keys = keys
    this.#values = values
  }
}

/** Whether `bytes` can hold whole entries of `entryBytes`, no more than `maxEntries` of them. */
export function fitsEntries(bytes: Buffer, entryBytes: number, maxEntries: number): boolean {
  return bytes.length % entryBytes === 0 && bytes.length / entryBytes <= maxEntries
}
