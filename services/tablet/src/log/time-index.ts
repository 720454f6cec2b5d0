import { assert } from '@sluice/core/errors'
import { fitsEntries, SparseIndex } from './sparse-index.js'

const ENTRY_BYTES = 12

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
export class TimeIndex extends SparseIndex<TimestampOffset> {
  constructor(baseOffset: number, maxEntries: number) {
    super(baseOffset, maxEntries, 'float64', 'time index')
  }

  /** The newest entry, or (-1, baseOffset) when empty. */
  lastEntry(): TimestampOffset {
    return this.entries === 0 ? { timestamp: -1, offset: this.baseOffset } : this.entryAt(this.entries - 1)
  }

  /** Appends when `timestamp` is above the last entry's (the index only records growth). */
  maybeAppend(timestamp: number, offset: number): void {
    const last = this.lastEntry()
    if (timestamp <= last.timestamp || this.isFull) return
    assert(offset >= last.offset, `time index offset ${offset} below previous ${last.offset}`)
    this.push(timestamp, offset - this.baseOffset)
  }

  /** The greatest entry with timestamp <= target, or (-1, baseOffset). */
  lookup(target: number): TimestampOffset {
    const found = this.floor(target)
    return found < 0 ? { timestamp: -1, offset: this.baseOffset } : this.entryAt(found)
  }

  toBytes(): Buffer {
    return this.serialize(ENTRY_BYTES, (out, at, timestamp, relativeOffset) => {
      out.writeBigInt64BE(BigInt(timestamp), at)
      out.writeInt32BE(relativeOffset, at + 8)
    })
  }

  /** Loads a time index file; null when the bytes cannot be a valid index (caller rebuilds). */
  static fromBytes(baseOffset: number, maxEntries: number, bytes: Buffer): TimeIndex | null {
    if (!fitsEntries(bytes, ENTRY_BYTES, maxEntries)) return null
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

  protected entryOf(timestamp: number, relativeOffset: number): TimestampOffset {
    return { timestamp, offset: this.baseOffset + relativeOffset }
  }
}
