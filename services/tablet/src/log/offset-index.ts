import { assert } from '@sluice/core/errors'
import { fitsEntries, SparseIndex } from './sparse-index.js'

const ENTRY_BYTES = 8
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
export class OffsetIndex extends SparseIndex<OffsetPosition> {
  constructor(baseOffset: number, maxEntries: number) {
    super(baseOffset, maxEntries, 'int32', 'offset index')
  }

  get sizeInBytes(): number {
    return this.entries * ENTRY_BYTES
  }

  /** Whether `offset` fits the index's 32-bit relative offsets. */
  canAppendOffset(offset: number): boolean {
    const relative = offset - this.baseOffset
    return relative >= 0 && relative <= MAX_RELATIVE_OFFSET
  }

  lastEntry(): OffsetPosition {
    if (this.entries === 0) return { offset: this.baseOffset, position: 0 }
    return this.entryAt(this.entries - 1)
  }

  append(offset: number, position: number): void {
    assert(!this.isFull, `offset index of segment ${this.baseOffset} is full`)
    assert(this.canAppendOffset(offset), `offset ${offset} overflows segment ${this.baseOffset}`)
    const last = this.entries > 0 ? this.entryAt(this.entries - 1) : null
    assert(!last || (offset > last.offset && position > last.position), 'offset index entries must grow')
    this.push(offset - this.baseOffset, position)
  }

  /** The greatest entry with offset <= target, or (baseOffset, 0). */
  lookup(target: number): OffsetPosition {
    const found = this.floor(target - this.baseOffset)
    return found < 0 ? { offset: this.baseOffset, position: 0 } : this.entryAt(found)
  }

  toBytes(): Buffer {
    return this.serialize(ENTRY_BYTES, (out, at, relativeOffset, position) => {
      out.writeInt32BE(relativeOffset, at)
      out.writeInt32BE(position, at + 4)
    })
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
    if (!fitsEntries(bytes, ENTRY_BYTES, maxEntries)) return null
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

  protected entryOf(relativeOffset: number, position: number): OffsetPosition {
    return { offset: this.baseOffset + relativeOffset, position }
  }
}
