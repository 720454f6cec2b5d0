import type { AppendWriter, Connection, Lookuper, Table } from '@sluice/client'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import { TableChangedError } from './gateway-backend.js'

export interface SdkBackendOptions {
  /** Tables whose handle and writers are kept open (least recently used are closed). */
  readonly maxOpenTables: number
  /** Upsert writers per table for distinct partial-update column sets (oldest closed first). */
  readonly maxPartialWritersPerTable: number
  /** Prefix lookupers per table for distinct lookup column sets (oldest dropped first). */
  readonly maxPrefixLookupersPerTable: number
}

export const DEFAULT_SDK_BACKEND_OPTIONS: SdkBackendOptions = {
  maxOpenTables: 64,
  maxPartialWritersPerTable: 8,
  maxPrefixLookupersPerTable: 4,
}

export type UpsertWriter = ReturnType<ReturnType<Table['newUpsert']>['createWriter']>

/** One table's SDK handle and the writers and lookupers requests share on it, made on first use. */
export class OpenTable {
  #appender: AppendWriter | undefined
  /** Upsert writers by target columns ('' = full rows). */
  readonly #upserters = new Map<string, UpsertWriter>()
  #lookuper: Lookuper | undefined
  /** Prefix lookupers by lookup columns. */
  readonly #prefixLookupers = new Map<string, Lookuper>()

  constructor(
    readonly table: Table,
    private readonly options: SdkBackendOptions,
  ) {}

  appender(): AppendWriter {
    this.#appender ??= this.table.newAppend().createWriter()
    return this.#appender
  }

  /** The upsert writer for these target columns (undefined = full rows). */
  upserter(targetColumns: readonly string[] | undefined): UpsertWriter {
    const key = targetColumns === undefined ? '' : targetColumns.join('\u0000')
    const held = this.#upserters.get(key)
    if (held !== undefined) return held
    const upsert = this.table.newUpsert()
    const writer = (targetColumns === undefined ? upsert : upsert.partialUpdate(targetColumns)).createWriter()
    this.#upserters.set(key, writer)
    const partial = [...this.#upserters.keys()].filter(k => k !== '')
    if (partial.length > this.options.maxPartialWritersPerTable) {
      this.#upserters
        .get(partial[0])
        ?.close()
        .catch(() => {})
      this.#upserters.delete(partial[0])
    }
    return writer
  }

  lookuper(): Lookuper {
    this.#lookuper ??= this.table.newLookup().createLookuper()
    return this.#lookuper
  }

  /** The prefix lookuper for these lookup columns, in the order the SDK takes them. */
  prefixLookuper(columns: readonly string[]): Lookuper {
    const key = columns.join('\u0000')
    const held = this.#prefixLookupers.get(key)
    if (held !== undefined) return held
    const lookuper = this.table.newLookup().lookupBy(columns).createLookuper()
    this.#prefixLookupers.set(key, lookuper)
    if (this.#prefixLookupers.size > this.options.maxPrefixLookupersPerTable) {
      this.#prefixLookupers.delete(this.#prefixLookupers.keys().next().value as string)
    }
    return lookuper
  }

  /** Closes the writers (flushing what they hold, in the background). */
  closeWriters(): void {
    this.#appender?.close().catch(() => {})
    for (const w of this.#upserters.values()) w.close().catch(() => {})
  }
}

/**
 * The open tables of a connection, by path: at most `maxOpenTables` (least recently used closed
 * first); a table recreated (new id) or whose schema changed is reopened.
 */
export class OpenTables {
  readonly #open = new Map<string, OpenTable>()

  constructor(
    private readonly connection: Connection,
    private readonly options: SdkBackendOptions,
  ) {}

  async get(info: TableInfo): Promise<OpenTable> {
    const key = keyOf(info.tablePath)
    const held = this.#open.get(key)
    const current = held?.table.getTableInfo()
    if (held !== undefined && current?.tableId === info.tableId && current.schemaId === info.schemaId) {
      this.#open.delete(key)
      this.#open.set(key, held)
      return held
    }
    this.forget(info.tablePath)
    const open = new OpenTable(await this.connection.getTable(info.tablePath), this.options)
    this.#open.set(key, open)
    while (this.#open.size > this.options.maxOpenTables) {
      const [oldest, evicted] = this.#open.entries().next().value as [string, OpenTable]
      this.#open.delete(oldest)
      evicted.closeWriters()
    }
    return open
  }

  /**
   * Like `get`, for writes of rows validated against `info`: TableChangedError unless the handle
   * opened is that very table and schema (the cluster's may be newer than `info`).
   */
  async getExact(info: TableInfo): Promise<OpenTable> {
    const open = await this.get(info)
    const current = open.table.getTableInfo()
    if (current.tableId !== info.tableId || current.schemaId !== info.schemaId) {
      throw new TableChangedError(info.tablePath)
    }
    return open
  }

  forget(path: TablePath): void {
    const key = keyOf(path)
    this.#open.get(key)?.closeWriters()
    this.#open.delete(key)
  }

  /** Drops every handle (the connection's close flushes and closes the writers). */
  clear(): void {
    this.#open.clear()
  }
}

function keyOf(path: TablePath): string {
  return `${path.databaseName}.${path.tableName}`
}
