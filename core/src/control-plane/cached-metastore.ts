import { assert } from '../errors/index.js'
import type {
  GetOptions,
  ItemValue,
  MetaStore,
  QueryOptions,
  QueryPage,
  VersionedItem,
  WriteCondition,
} from '../metastore/index.js'

export interface CachedMetaStoreOptions {
  /** How long a read result is reused. */
  readonly ttlMs: number
  /** Most cached results; the oldest is evicted beyond it. */
  readonly maxEntries: number
  readonly nowMs: () => number
}

interface Entry {
  readonly pk: string
  readonly expiresAtMs: number
  readonly result: VersionedItem | undefined | QueryPage
}

/**
 * A read-through cache in front of a MetaStore for readers that tolerate slightly stale metadata
 * (tablet servers and the gateway answering GET_METADATA and friends). Results are reused for
 * `ttlMs`; writes through this store invalidate every cached read of the same partition key. Absent
 * items are never cached (see `Catalog` for the other negative answers).
 * Cached results are shared between callers and must not be modified.
 */
export class CachedMetaStore implements MetaStore {
  readonly #inner: MetaStore
  readonly #options: CachedMetaStoreOptions
  readonly #entries = new Map<string, Entry>()
  readonly #keysByPk = new Map<string, Set<string>>()

  constructor(inner: MetaStore, options: CachedMetaStoreOptions) {
    assert(options.ttlMs > 0 && options.maxEntries > 0, 'a cache needs a positive ttl and size')
    this.#inner = inner
    this.#options = options
  }

  get size(): number {
    return this.#entries.size
  }

  async get(pk: string, sk: string, options?: GetOptions): Promise<VersionedItem | undefined> {
    const key = `g\u0000${pk}\u0000${sk}`
    const hit = this.#lookup(key)
    if (hit !== undefined) return hit.result as VersionedItem | undefined
    const result = await this.#inner.get(pk, sk, options)
    // "Not found" is not kept: an item created a moment later (a table, a partition) must be seen.
    if (result !== undefined) this.#remember(key, pk, result)
    return result
  }

  async query(pk: string, options: QueryOptions = {}): Promise<QueryPage> {
    const { consistent: _, ...shape } = options
    const key = `q\u0000${pk}\u0000${JSON.stringify(shape)}`
    const hit = this.#lookup(key)
    if (hit !== undefined) return hit.result as QueryPage
    const result = await this.#inner.query(pk, options)
    this.#remember(key, pk, result)
    return result
  }

  async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    try {
      return await this.#inner.put(pk, sk, value, condition)
    } finally {
      this.invalidate(pk)
    }
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    try {
      await this.#inner.delete(pk, sk, condition)
    } finally {
      this.invalidate(pk)
    }
  }

  async close(): Promise<void> {
    this.clear()
    await this.#inner.close()
  }

  /** Forgets every cached read of one partition key. */
  invalidate(pk: string): void {
    for (const key of this.#keysByPk.get(pk) ?? []) this.#entries.delete(key)
    this.#keysByPk.delete(pk)
  }

  clear(): void {
    this.#entries.clear()
    this.#keysByPk.clear()
  }

  #lookup(key: string): Entry | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAtMs > this.#options.nowMs()) return entry
    this.#forget(key, entry)
    return undefined
  }

  #remember(key: string, pk: string, result: Entry['result']): void {
    const previous = this.#entries.get(key)
    if (previous !== undefined) this.#forget(key, previous)
    while (this.#entries.size >= this.#options.maxEntries) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [string, Entry]
      this.#forget(oldestKey, oldest)
    }
    this.#entries.set(key, { pk, expiresAtMs: this.#options.nowMs() + this.#options.ttlMs, result })
    let keys = this.#keysByPk.get(pk)
    if (keys === undefined) {
      keys = new Set()
      this.#keysByPk.set(pk, keys)
    }
    keys.add(key)
  }

  #forget(key: string, entry: Entry): void {
    this.#entries.delete(key)
    const keys = this.#keysByPk.get(entry.pk)
    keys?.delete(key)
    if (keys?.size === 0) this.#keysByPk.delete(entry.pk)
  }
}
