import { assert } from '@sluice/core/errors'

const ENTRY_BYTES = 12
const INITIAL_CAPACITY = 64

export interface TimestampOffset {
  readonly timestamp: number
  readonly offset: number
}

/**
 * Sparse time index of one segment: (max commit timestamp so far, base offset of the first batch
 * that reached it), appended beside offset-index entries whenever the maximum has grown, and once
 * more when the segment is sealed. Every batch before an entry's offset has a smaller timestamp, so
 * a timestamp search can start at the entry found by `lookup`.
 *
 * Held in memory; the `.timeindex` file holds 12-byte entries (timestamp int64 BE, relative offset
 * int32 BE, Fluss's layout), written whole when the segment is sealed or closed.
 */
export class TimeIndex {
  #timestamps = new Float64Array(INITIAL_CAPACITY)
  #relativeOffsets = new Int32Array(INITIAL_CAPACITY)
  #count = 0

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {
    assert(maxEntries > 0, 'time index needs room for at least one entry')
  }

  get entries(): number {
    return this.#count
  }

  get isFull(): boolean {
    return this.#count >= this.maxEntries
  }

  /** The newest entry, or (-1, baseOffset) when empty. */
  lastEntry(): TimestampOffset {
    return this.#count === 0 ? { timestamp: -1, offset: this.baseOffset } : this.#entry(this.#count - 1)
  }

  /** Appends when `timestamp` is above the last entry's (the index only records growth). */
  maybeAppend(timestamp: number, offset: number): void {
    const last = this.lastEntry()
    if (timestamp <= last.timestamp || this.isFull) return
    assert(offset >= last.offset, `time index offset ${offset} below previous ${last.offset}`)
    this.#grow()
    this.#timestamps[this.#count] = timestamp
    this.#relativeOffsets[this.#count] = offset - this.baseOffset
    this.#count++
  }

  /** The greatest entry with timestamp <= target, or (-1, baseOffset). */
  lookup(target: number): TimestampOffset {
    let lo = 0
    let hi = this.#count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.#timestamps[mid] <= target) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found < 0 ? { timestamp: -1, offset: this.baseOffset } : this.#entry(found)
  }

  /** Drops entries pointing at or above `offset`. */
  truncateTo(offset: number): void {
    while (this.#count > 0 && this.#entry(this.#count - 1).offset >= offset) this.#count--
  }

  reset(): void {
    this.#count = 0
  }

  toBytes(): Buffer {
    const out = Buffer.alloc(this.#count * ENTRY_BYTES)
    for (let i = 0; i < this.#count; i++) {
      out.writeBigInt64BE(BigInt(this.#timestamps[i]), i * ENTRY_BYTES)
      out.writeInt32BE(this.#relativeOffsets[i], i * ENTRY_BYTES + 8)
    }
    return out
  }

  /** Loads a time index file; null when the bytes cannot be a valid index (caller rebuilds). */
  static fromBytes(baseOffset: number, maxEntries: number, bytes: Buffer): TimeIndex | null {
    if (bytes.length % ENTRY_BYTES !== 0 || bytes.length / ENTRY_BYTES > maxEntries) return null
    const index = new TimeIndex(baseOffset, maxEntries)
    for (let at = 0; at < bytes.length; at += ENTRY_BYTES) {
      const timestamp = Number(bytes.readBigInt64BE(at))
      const offset = baseOffset + bytes.readInt32BE(at + 8)
      const last = index.lastEntry()
      if (timestamp <= last.timestamp || offset < last.offset) return null
      index.maybeAppend(timestamp, offset)
    }
    return index
  }

  #entry(i: number): TimestampOffset {
    return { timestamp: this.#timestamps[i], offset: this.baseOffset + this.#relativeOffsets[i] }
  }

  #grow(): void {
    if (this.#count < this.#timestamps.length) return
    const capacity = Math.min(this.maxEntries, this.#timestamps.length * 2)
    const timestamps = new Float64Array(capacity)
    const offsets = new Int32Array(capacity)
    timestamps.set(this.#timestamps)
    offsets.set(this.#relativeOffsets)
    this.#timestamps = timestamps
    this.#relativeOffsets = offsets
  }
}
