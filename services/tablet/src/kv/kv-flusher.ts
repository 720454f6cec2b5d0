import type { BatchAnchor, KvMeta } from './kv-meta.js'
import type { KvEntry, KvPreWriteBuffer } from './kv-pre-write-buffer.js'
import type { RocksDbKv } from './rocksdb-kv.js'

/**
 * Moves acknowledged writes from the pre-write buffer into RocksDB and keeps the store's `KvMeta`
 * (flushed offset, row count, the batch anchoring the flushed offset). Each RocksDB write batch
 * carries the meta of exactly the writes it holds, so RocksDB never claims more than it has.
 * Not reentrant: the KvTablet runs flushes one at a time (they may overlap a put: see KvPutter).
 */
export class KvFlusher {
  /** Changelog batches at or above the flushed offset, oldest first (to anchor later flushes). */
  #batches: BatchAnchor[]
  #meta: KvMeta

  constructor(
    readonly rocks: RocksDbKv,
    readonly buffer: KvPreWriteBuffer,
    /** `kv.rocksdb.write-batch-size`: about this many bytes per RocksDB write (0 = one write). */
    readonly writeBatchBytes: number,
    meta: KvMeta,
    pendingBatches: readonly BatchAnchor[],
  ) {
    this.#meta = meta
    this.#batches = [...pendingBatches]
  }

  get meta(): KvMeta {
    return this.#meta
  }

  /** Records a batch appended to the log (its records are in the buffer). */
  addBatch(batch: BatchAnchor): void {
    this.#batches.push(batch)
  }

  /** Flushes every buffered write below `upTo` (at most the log end offset); returns the flushed offset. */
  async flushTo(upTo: number): Promise<number> {
    if (upTo <= this.#meta.flushedOffset) return this.#meta.flushedOffset
    const entries = this.buffer.entriesBelow(upTo)
    let start = 0
    while (start < entries.length) {
      const end = this.#chunkEnd(entries, start)
      const chunkUpTo = end === entries.length ? upTo : entries[end - 1].logOffset + 1
      await this.#write(entries.slice(start, end), chunkUpTo)
      start = end
    }
    if (entries.length === 0) this.#advance(upTo, 0)
    return this.#meta.flushedOffset
  }

  #chunkEnd(entries: readonly KvEntry[], start: number): number {
    let end = start
    let bytes = 0
    while (
      end < entries.length &&
      (this.writeBatchBytes <= 0 || bytes < this.writeBatchBytes || end === start)
    ) {
      bytes += entries[end].key.length + (entries[end].value?.bytes.length ?? 0)
      end++
    }
    return end
  }

  async #write(entries: readonly KvEntry[], upTo: number): Promise<void> {
    const countRows = this.#meta.rowCount >= 0
    const rowCountDelta = countRows ? entries.reduce((n, e) => n + e.rowCountDelta, 0) : 0
    const meta: KvMeta = {
      flushedOffset: upTo,
      rowCount: countRows ? this.#meta.rowCount + rowCountDelta : -1,
      anchor: this.#anchorFor(upTo),
    }
    await this.rocks.write(entries, meta)
    this.#advance(upTo, rowCountDelta)
  }

  #advance(upTo: number, rowCountDelta: number): void {
    this.buffer.markFlushedBelow(upTo)
    const rowCount = this.#meta.rowCount < 0 ? -1 : this.#meta.rowCount + rowCountDelta
    this.#meta = { flushedOffset: upTo, rowCount, anchor: this.#anchorFor(upTo) }
    const keepFrom = this.#batches.findIndex(b => b.lastOffset >= upTo - 1)
    this.#batches = keepFrom < 0 ? [] : this.#batches.slice(keepFrom)
  }

  /** The batch holding `offset - 1` (null for offset 0). */
  #anchorFor(offset: number): BatchAnchor | null {
    if (offset === 0) return null
    const last = offset - 1
    const holds = (b: BatchAnchor | null) => b !== null && b.baseOffset <= last && last <= b.lastOffset
    const batch = this.#batches.find(holds)
    if (batch !== undefined) return batch
    return holds(this.#meta.anchor) ? this.#meta.anchor : null
  }
}
