import type { TableInfo, TablePath } from '@sluice/core/metadata'
import type { Clock } from '@sluice/core/util'

interface Entry {
  readonly info: Promise<TableInfo>
  readonly expiresAtMs: number
}

/** A table's info from the cache. */
export interface CachedTableInfo {
  readonly info: TableInfo
  /** Whether this call loaded it (false: it was loaded for an earlier request, at most `ttlMs` ago). */
  readonly loaded: boolean
}

/**
 * Table infos the write and lookup routes use, kept for `ttlMs` after they were loaded so that a
 * steady stream of requests does not ask the coordinator (and its metadata store) for the table on
 * every request. At most `maxEntries`
 * tables are kept (the one loaded longest ago is dropped first); `ttlMs` 0 turns the cache off.
 * Loads that fail are not kept; concurrent requests share one load.
 *
 * A kept info is never trusted blindly (see write-request.ts and kept-table.ts): DDL through this
 * gateway drops the entry at once; a request a kept info refuses is checked again against a fresh
 * load; a request whose info no longer matches the table the backend would use fails there before
 * anything is done (TableChangedError) and runs again with a fresh load; any other failure drops
 * the entry. What remains: for at most `ttlMs` after another client drops a table and creates it
 * again, requests may still go to the dropped table (as with any client holding it open), which
 * the cluster refuses once its replicas are gone.
 */
export class TableInfoCache {
  readonly #entries = new Map<string, Entry>()

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.#entries.size
  }

  /** The kept info of `path`, or what `load` gives (then kept). */
  async get(path: TablePath, load: () => Promise<TableInfo>): Promise<CachedTableInfo> {
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return { info: await load(), loaded: true }
    const key = keyOf(path)
    const now = this.clock.nowMs()
    const held = this.#entries.get(key)
    if (held !== undefined && held.expiresAtMs > now) return { info: await held.info, loaded: false }
    const info = load()
    const entry = { info, expiresAtMs: now + this.ttlMs }
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    while (this.#entries.size > this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string)
    }
    try {
      return { info: await info, loaded: true }
    } catch (e) {
      if (this.#entries.get(key) === entry) this.#entries.delete(key)
      throw e
    }
  }

  /** Forgets one table. */
  invalidate(path: TablePath): void {
    this.#entries.delete(keyOf(path))
  }

  /** Forgets every table of a database. */
  invalidateDatabase(databaseName: string): void {
    const prefix = keyOf({ databaseName, tableName: '' })
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key)
  }
}

function keyOf(path: TablePath): string {
  return `${path.databaseName}\u0000${path.tableName}`
}
