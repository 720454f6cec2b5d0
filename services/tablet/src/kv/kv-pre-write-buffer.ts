import { assert } from '@sluice/core/errors'
import type { KvValue } from './kv-schemas.js'

/** Bytes counted per entry on top of its key and value (map slot, entry object, row values). */
const ENTRY_OVERHEAD_BYTES = 96

/** One pending write: a value, or a tombstone (`value` null), at the changelog offset it belongs to. */
export interface KvEntry {
  readonly key: Buffer
  /** The key as a map key (latin1 string of the key bytes). */
  readonly keyId: string
  readonly value: KvValue | null
  logOffset: number
  /** +1 for an insert, -1 for a delete, 0 for an update (row count bookkeeping). */
  readonly rowCountDelta: number
  /** The entry this one replaced, restored if this one is truncated (null once flushed). */
  previous: KvEntry | null
  flushed: boolean
}

/** A map key for key bytes: one char per byte. */
export function keyIdOf(key: Buffer): string {
  return key.toString('latin1')
}

/**
 * Writes waiting for their changelog to be acknowledged (Fluss's `KvPreWriteBuffer`). Merges read
 * it before RocksDB, so a key written by a pending batch is seen at its newest pending value. Entries
 * are kept in changelog-offset order: `entriesBelow` + `markFlushedBelow` move the acknowledged
 * prefix to RocksDB, `truncateTo` drops a failed or duplicate batch's suffix. Offsets must increase.
 */
export class KvPreWriteBuffer {
  readonly #byKey = new Map<string, KvEntry>()
  #entries: KvEntry[] = []
  #head = 0
  #maxLogOffset = -1
  #pendingBytes = 0

  /** Entries waiting to be flushed. */
  get size(): number {
    return this.#entries.length - this.#head
  }

  /** Approximate memory held by pending entries. */
  get pendingBytes(): number {
    return this.#pendingBytes
  }

  get maxLogOffset(): number {
    return this.#maxLogOffset
  }

  /** The newest pending entry of a key (its value is null for a pending delete), or undefined. */
  get(keyId: string): KvEntry | undefined {
    return this.#byKey.get(keyId)
  }

  /** Stages a value (or a tombstone when `value` is null) at `logOffset`. */
  put(key: Buffer, keyId: string, value: KvValue | null, logOffset: number, rowCountDelta: number): void {
    assert(
      logOffset > this.#maxLogOffset,
      `pre-write offsets must increase: ${logOffset} after ${this.#maxLogOffset}`,
    )
    const previous = this.#byKey.get(keyId) ?? null
    const entry: KvEntry = { key, keyId, value, logOffset, rowCountDelta, previous, flushed: false }
    this.#byKey.set(keyId, entry)
    this.#entries.push(entry)
    this.#maxLogOffset = logOffset
    this.#pendingBytes += entryBytes(entry)
  }

  /** Drops every entry at or above `logOffset`, restoring what each one replaced. */
  truncateTo(logOffset: number): number {
    let dropped = 0
    while (this.#entries.length > this.#head) {
      const entry = this.#entries[this.#entries.length - 1]
      if (entry.logOffset < logOffset) break
      this.#entries.pop()
      this.#pendingBytes -= entryBytes(entry)
      if (this.#byKey.get(entry.keyId) === entry) {
        const previous = entry.previous
        if (previous !== null && !previous.flushed) this.#byKey.set(entry.keyId, previous)
        else this.#byKey.delete(entry.keyId)
      }
      dropped++
    }
    const last = this.#entries.length > this.#head ? this.#entries[this.#entries.length - 1] : undefined
    this.#maxLogOffset = last === undefined ? Math.min(this.#maxLogOffset, logOffset - 1) : last.logOffset
    return dropped
  }

  /**
   * Moves the entries at or above `fromOffset` by `delta` offsets: a put staged them at the log end
   * offset it saw, and something else was appended to the log before its batch.
   */
  shiftFrom(fromOffset: number, delta: number): void {
    assert(delta >= 0, `pre-write entries can only move forward, not by ${delta}`)
    for (let i = this.#entries.length - 1; i >= this.#head && this.#entries[i].logOffset >= fromOffset; i--) {
      this.#entries[i].logOffset += delta
    }
    if (this.#maxLogOffset >= fromOffset) this.#maxLogOffset += delta
  }

  /** The pending entries below `logOffset`, oldest first (still pending until `markFlushedBelow`). */
  entriesBelow(logOffset: number): KvEntry[] {
    let end = this.#head
    while (end < this.#entries.length && this.#entries[end].logOffset < logOffset) end++
    return this.#entries.slice(this.#head, end)
  }

  /** Removes the entries below `logOffset` once RocksDB holds them; returns their row count delta. */
  markFlushedBelow(logOffset: number): number {
    let rowCountDelta = 0
    while (this.#head < this.#entries.length && this.#entries[this.#head].logOffset < logOffset) {
      const entry = this.#entries[this.#head++]
      entry.flushed = true
      entry.previous = null
      rowCountDelta += entry.rowCountDelta
      this.#pendingBytes -= entryBytes(entry)
      if (this.#byKey.get(entry.keyId) === entry) this.#byKey.delete(entry.keyId)
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head)
      this.#head = 0
    }
    return rowCountDelta
  }
}

function entryBytes(entry: KvEntry): number {
  return ENTRY_OVERHEAD_BYTES + entry.key.length + (entry.value?.bytes?.length ?? 0)
}
