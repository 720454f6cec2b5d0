import { assert } from '@sluice/core/errors'

const ENTRY_BYTES = 8
const INITIAL_CAPACITY = 64
const MAX_RELATIVE_OFFSET = 0x7fffffff

export interface OffsetPosition {
  readonly offset: number
  readonly position: number
}

/**
 * Sparse offset index of one segment: entries map the last offset of a batch to the file position
 * where that batch starts, one entry every `log.index.interval-size` bytes of log. A lookup returns
 * the greatest entry at or below the target, so a scan from its position finds the target batch.
 *
 * Held in memory; the `.index` file is written whole (8-byte entries: relative offset int32 BE,
 * position int32 BE, the same bytes as a trimmed Fluss index) when the segment is sealed or closed,
 * and rebuilt from the log after an unclean shutdown.
 */
export class OffsetIndex {
  #relativeOffsets = new Int32Array(INITIAL_CAPACITY)
  #positions = new Int32Array(INITIAL_CAPACITY)
  #count = 0

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {
    assert(maxEntries > 0, 'offset index needs room for at least one entry')
  }

  get entries(): number {
    return this.#count
  }

  get isFull(): boolean {
    return this.#count >= this.maxEntries
  }

  get sizeInBytes(): number {
    return this.#count * ENTRY_BYTES
  }

  /** Whether `offset` fits the index's 32-bit relative offsets. */
  canAppendOffset(offset: number): boolean {
    const relative = offset - this.baseOffset
    return relative >= 0 && relative <= MAX_RELATIVE_OFFSET
  }

  lastEntry(): OffsetPosition {
    if (this.#count === 0) return { offset: this.baseOffset, position: 0 }
    return this.#entry(this.#count - 1)
  }

  append(offset: number, position: number): void {
    assert(!this.isFull, `offset index of segment ${this.baseOffset} is full`)
    assert(this.canAppendOffset(offset), `offset ${offset} overflows segment ${this.baseOffset}`)
    const last = this.#count > 0 ? this.#entry(this.#count - 1) : null
    assert(!last || (offset > last.offset && position > last.position), 'offset index entries must grow')
    this.#grow()
    this.#relativeOffsets[this.#count] = offset - this.baseOffset
    this.#positions[this.#count] = position
    this.#count++
  }

  /** The greatest entry with offset <= target, or (baseOffset, 0). */
  lookup(target: number): OffsetPosition {
    let lo = 0
    let hi = this.#count - 1
    let found = -1
    const relative = target - this.baseOffset
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.#relativeOffsets[mid] <= relative) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found < 0 ? { offset: this.baseOffset, position: 0 } : this.#entry(found)
  }

  /** Drops entries whose batches are cut by truncating the log at `offset`. */
  truncateTo(offset: number): void {
    while (this.#count > 0 && this.#entry(this.#count - 1).offset >= offset) this.#count--
  }

  reset(): void {
    this.#count = 0
  }

  toBytes(): Buffer {
    const out = Buffer.alloc(this.#count * ENTRY_BYTES)
    for (let i = 0; i < this.#count; i++) {
      out.writeInt32BE(this.#relativeOffsets[i], i * ENTRY_BYTES)
      out.writeInt32BE(this.#positions[i], i * ENTRY_BYTES + 4)
    }
    return out
  }

  /**
   * Loads an index file; null when the bytes cannot be a valid index for a log of `logBytes` bytes
   * (odd length, entries not growing, positions past the log), so the caller rebuilds it.
   */
  static fromBytes(
    baseOffset: number,
    maxEntries: number,
    bytes: Buffer,
    logBytes: number,
  ): OffsetIndex | null {
    if (bytes.length % ENTRY_BYTES !== 0 || bytes.length / ENTRY_BYTES > maxEntries) return null
    const index = new OffsetIndex(baseOffset, maxEntries)
    let previous: OffsetPosition | null = null
    for (let at = 0; at < bytes.length; at += ENTRY_BYTES) {
      const offset = baseOffset + bytes.readInt32BE(at)
      const position = bytes.readInt32BE(at + 4)
      const grows = !previous || (offset > previous.offset && position > previous.position)
      if (!grows || offset < baseOffset || position <= 0 || position >= logBytes) return null
      index.append(offset, position)
      previous = { offset, position }
    }
    return index
  }

  #entry(i: number): OffsetPosition {
    return { offset: this.baseOffset + this.#relativeOffsets[i], position: this.#positions[i] }
  }

  #grow(): void {
    if (this.#count < this.#relativeOffsets.length) return
    const capacity = Math.min(this.maxEntries, this.#relativeOffsets.length * 2)
    const offsets = new Int32Array(capacity)
    const positions = new Int32Array(capacity)
    offsets.set(this.#relativeOffsets)
    positions.set(this.#positions)
    this.#relativeOffsets = offsets
    this.#positions = positions
  }
}
