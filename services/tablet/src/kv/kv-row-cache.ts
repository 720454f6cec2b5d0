/**
 * A tablet server's cache of primary-key rows in front of RocksDB (in the spirit of RocksDB's own
 * row cache): the stored values of keys recently read from a bucket's RocksDB, shared by every
 * bucket on the server under one byte budget (`sluice.tablet-server.kv.row-cache-size`). A lookup
 * of a cached key is answered without a RocksDB read (no thread-pool round trip, no copy).
 *
 * Each RocksDbKv holds a segment; entries are keyed by segment and key bytes. Only values present
 * in RocksDB are cached (absent keys are not). Eviction is CLOCK (second chance): the map's
 * insertion order is the clock, a hit sets the entry's reference bit, and eviction walks from the
 * oldest entry, moving referenced ones to the back with their bit cleared and dropping the first
 * unreferenced one. Values are kept as given: callers hand over buffers nobody writes to (RocksDB's
 * own results, or copies).
 */
export class KvRowCache {
  readonly #entries = new Map<string, CacheEntry>()
  #usedBytes = 0
  #nextSegment = 1
  #hits = 0
  #misses = 0

  constructor(readonly capacityBytes: number) {}

  /** A new, empty segment for one RocksDB instance. */
  segment(): KvRowCacheSegment {
    return new KvRowCacheSegment(this, `${this.#nextSegment++}\u0000`)
  }

  get usedBytes(): number {
    return this.#usedBytes
  }

  get size(): number {
    return this.#entries.size
  }

  /** Lookups answered from the cache, and lookups that went to RocksDB, since the start. */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses }
  }

  get(id: string): Buffer | undefined {
    const entry = this.#entries.get(id)
    if (entry === undefined) {
      this.#misses++
      return undefined
    }
    this.#hits++
    entry.referenced = true
    return entry.value
  }

  /** Counts lookups that went to RocksDB without looking (the cache was empty). */
  noteMisses(count: number): void {
    this.#misses += count
  }

  has(id: string): boolean {
    return this.#entries.has(id)
  }

  /** Caches (or replaces) a value; values larger than the whole budget are not cached. */
  set(id: string, value: Buffer): void {
    const bytes = entryBytes(id, value)
    if (bytes > this.capacityBytes) {
      this.delete(id)
      return
    }
    const existing = this.#entries.get(id)
    if (existing !== undefined) {
      this.#usedBytes += bytes - existing.bytes
      existing.value = value
      existing.bytes = bytes
    } else {
      this.#entries.set(id, { value, bytes, referenced: false })
      this.#usedBytes += bytes
    }
    if (this.#usedBytes > this.capacityBytes) this.#evict(id)
  }

  delete(id: string): void {
    const entry = this.#entries.get(id)
    if (entry === undefined) return
    this.#entries.delete(id)
    this.#usedBytes -= entry.bytes
  }

  /** Drops every entry whose id starts with `prefix` (a segment going away). */
  deletePrefix(prefix: string): void {
    for (const [id, entry] of this.#entries) {
      if (!id.startsWith(prefix)) continue
      this.#entries.delete(id)
      this.#usedBytes -= entry.bytes
    }
  }

  /** Evicts until the budget holds again, never the entry just set (`keep`). */
  #evict(keep: string): void {
    const entries = this.#entries
    while (this.#usedBytes > this.capacityBytes && entries.size > 1) {
      const next = entries.entries().next()
      if (next.done === true) return
      const [id, entry] = next.value
      entries.delete(id)
      if (entry.referenced || id === keep) {
        entry.referenced = false
        entries.set(id, entry)
      } else {
        this.#usedBytes -= entry.bytes
      }
    }
  }
}

interface CacheEntry {
  value: Buffer
  bytes: number
  referenced: boolean
}

/** Bytes charged for an entry: its value, its key (two bytes a character) and the map's share. */
function entryBytes(id: string, value: Buffer): number {
  return value.length + 2 * id.length + ENTRY_OVERHEAD_BYTES
}

/** The entry object, its map slot and the value's Buffer object, roughly. */
const ENTRY_OVERHEAD_BYTES = 160

/** A copy of `bytes` in a buffer of its own: a view into a larger one would keep all of it alive. */
function exactCopy(bytes: Buffer): Buffer {
  const copy = new Uint8Array(bytes)
  return Buffer.from(copy.buffer, 0, copy.length)
}

/**
 * One RocksDB instance's part of the row cache. Reads that raced a write are not cached: every
 * completed write batch moves `writeEpoch` on, and a read's values are cached only when no write
 * completed while it ran (`cacheRead`); writes update the entries of keys already cached
 * (`afterWrite`), so an entry never lags behind RocksDB once a write has completed.
 */
export class KvRowCacheSegment {
  #writeEpoch = 0
  #closed = false

  constructor(
    readonly cache: KvRowCache,
    readonly prefix: string,
  ) {}

  get writeEpoch(): number {
    return this.#writeEpoch
  }

  /** The cache id of a key (the key bytes as latin1 text, after the segment prefix). */
  id(key: Buffer): string {
    return this.prefix + key.toString('latin1')
  }

  get(id: string): Buffer | undefined {
    return this.cache.get(id)
  }

  /** Whether the whole cache (every segment) is empty: then a lookup need not look. */
  get isEmpty(): boolean {
    return this.cache.size === 0
  }

  /**
   * Caches the values found by a RocksDB read of `keys` when no write completed since `epoch`
   * (`writeEpoch` when the read began). `ids`: the keys' ids, when the caller has made them.
   */
  cacheRead(
    epoch: number,
    keys: readonly Buffer[],
    values: readonly (Buffer | null)[],
    ids?: readonly string[],
  ): void {
    if (this.#closed || epoch !== this.#writeEpoch) return
    for (let i = 0; i < keys.length; i++) {
      const value = values[i]
      if (value !== null) this.cache.set(ids?.[i] ?? this.id(keys[i]), value)
    }
  }

  /** After a write batch is applied: cached keys get their new value (a copy) or leave (deletes). */
  afterWrite(
    writes: readonly { readonly key: Buffer; readonly value: { readonly bytes: Buffer } | null }[],
  ): void {
    this.#writeEpoch++
    if (this.#closed || this.cache.size === 0) return
    for (const w of writes) {
      const id = this.id(w.key)
      if (!this.cache.has(id)) continue
      if (w.value === null) this.cache.delete(id)
      else this.cache.set(id, exactCopy(w.value.bytes))
    }
  }

  /** After a write batch failed (applied or not): the written keys leave the cache. */
  forget(writes: readonly { readonly key: Buffer }[]): void {
    this.#writeEpoch++
    if (this.#closed || this.cache.size === 0) return
    for (const w of writes) this.cache.delete(this.id(w.key))
  }

  /** Drops the segment's entries; later reads and writes leave the cache alone. */
  close(): void {
    this.#closed = true
    this.#writeEpoch++
    this.cache.deletePrefix(this.prefix)
  }
}
