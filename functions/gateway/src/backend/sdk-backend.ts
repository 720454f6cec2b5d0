import { type AppendWriter, Connection, type Table } from '@sluice/client'
import type { Row } from '@sluice/core'
import type { Configuration } from '@sluice/core/config'
import type { DatabaseDescriptor, TableDescriptor, TableInfo, TablePath } from '@sluice/core/metadata'
import type * as B from './gateway-backend.js'
import { scanLog } from './sdk-scan.js'
import { writeRows } from './sdk-write.js'
import { unsupported } from './unsupported.js'

export interface SdkBackendOptions {
  /** Tables whose handle and writers are kept open (least recently used are closed). */
  readonly maxOpenTables: number
  /** Upsert writers per table for distinct partial-update column sets (oldest closed first). */
  readonly maxPartialWritersPerTable: number
}

export const DEFAULT_SDK_BACKEND_OPTIONS: SdkBackendOptions = {
  maxOpenTables: 64,
  maxPartialWritersPerTable: 8,
}

type UpsertWriter = ReturnType<ReturnType<Table['newUpsert']>['createWriter']>

interface OpenTable {
  readonly table: Table
  appender?: AppendWriter
  /** Upsert writers by target columns ('' = full rows). */
  readonly upserters: Map<string, UpsertWriter>
}

const MISSING_LOOKUP = 'the TypeScript SDK has no lookuper yet (primary-key tables)'

/**
 * The gateway backend over the TypeScript SDK: one Connection (created once per process or Lambda
 * container) for DDL, appends and log scans. Operations on primary-key tables and lake tiering
 * status answer 501 `unsupported` until the SDK offers them.
 */
export class SdkBackend implements B.GatewayBackend {
  readonly #open = new Map<string, OpenTable>()

  constructor(
    readonly connection: Connection,
    private readonly options: SdkBackendOptions = DEFAULT_SDK_BACKEND_OPTIONS,
  ) {}

  /** Connects to the cluster named by `bootstrap.servers` in `config`. */
  static async connect(config: Configuration, options?: SdkBackendOptions): Promise<SdkBackend> {
    return new SdkBackend(await Connection.create(config), options)
  }

  /** Flushes open writers and closes the connection. */
  async close(): Promise<void> {
    this.#open.clear()
    await this.connection.close()
  }

  get #admin() {
    return this.connection.getAdmin()
  }

  listDatabases(): Promise<string[]> {
    return this.#admin.listDatabases()
  }
  getDatabase(_ctx: B.BackendContext, name: string) {
    return this.#admin.getDatabaseInfo(name)
  }
  createDatabase(
    _ctx: B.BackendContext,
    name: string,
    descriptor: DatabaseDescriptor,
    ignoreIfExists: boolean,
  ) {
    return this.#admin.createDatabase(name, descriptor, ignoreIfExists)
  }
  dropDatabase(_ctx: B.BackendContext, name: string, ignoreIfNotExists: boolean, cascade: boolean) {
    return this.#admin.dropDatabase(name, ignoreIfNotExists, cascade)
  }
  listTables(_ctx: B.BackendContext, database: string) {
    return this.#admin.listTables(database)
  }
  getTableInfo(_ctx: B.BackendContext, path: TablePath) {
    return this.#admin.getTableInfo(path)
  }
  createTable(_ctx: B.BackendContext, path: TablePath, descriptor: TableDescriptor, ignoreIfExists: boolean) {
    return this.#admin.createTable(path, descriptor, ignoreIfExists)
  }
  async dropTable(_ctx: B.BackendContext, path: TablePath, ignoreIfNotExists: boolean) {
    await this.#admin.dropTable(path, ignoreIfNotExists)
    this.#forget(path)
  }
  listPartitions(_ctx: B.BackendContext, path: TablePath) {
    return this.#admin.listPartitionInfos(path)
  }
  createPartition(
    _ctx: B.BackendContext,
    path: TablePath,
    spec: B.PartitionSpecValues,
    ignoreIfExists: boolean,
  ) {
    return this.#admin.createPartition(path, spec, ignoreIfExists)
  }
  dropPartition(
    _ctx: B.BackendContext,
    path: TablePath,
    spec: B.PartitionSpecValues,
    ignoreIfNotExists: boolean,
  ) {
    return this.#admin.dropPartition(path, spec, ignoreIfNotExists)
  }

  async append(ctx: B.BackendContext, info: TableInfo, rows: readonly Row[]): Promise<B.WriteResult> {
    const open = await this.#table(info)
    const writer = (open.appender ??= open.table.newAppend().createWriter())
    return writeRows(
      { write: row => writer.appendWithResult(row), flush: () => writer.flush() },
      rows,
      ctx.signal,
    )
  }

  async upsert(
    ctx: B.BackendContext,
    info: TableInfo,
    rows: readonly Row[],
    targetColumns?: readonly string[],
  ) {
    const writer = this.#upserter(await this.#table(info), targetColumns)
    const targets = targetColumns?.map(name => info.rowType.fields.findIndex(f => f.name === name))
    const input = targets === undefined ? (row: Row) => row : (row: Row) => targets.map(i => row[i])
    const sink = { write: (row: Row) => writer.upsertWithResult(input(row)), flush: () => writer.flush() }
    return writeRows(sink, rows, ctx.signal)
  }

  async delete(ctx: B.BackendContext, info: TableInfo, rows: readonly Row[]): Promise<B.WriteResult> {
    const writer = this.#upserter(await this.#table(info), undefined)
    return writeRows(
      { write: row => writer.deleteWithResult(row), flush: () => writer.flush() },
      rows,
      ctx.signal,
    )
  }

  /** The table's upsert writer for these target columns (undefined = full rows), created on first use. */
  #upserter(open: OpenTable, targetColumns: readonly string[] | undefined): UpsertWriter {
    const key = targetColumns === undefined ? '' : targetColumns.join('\u0000')
    const held = open.upserters.get(key)
    if (held !== undefined) return held
    const upsert = open.table.newUpsert()
    const writer = (targetColumns === undefined ? upsert : upsert.partialUpdate(targetColumns)).createWriter()
    open.upserters.set(key, writer)
    const partial = [...open.upserters.keys()].filter(k => k !== '')
    if (partial.length > this.options.maxPartialWritersPerTable) {
      open.upserters
        .get(partial[0])
        ?.close()
        .catch(() => {})
      open.upserters.delete(partial[0])
    }
    return writer
  }

  async lookup(): Promise<(Row | null)[]> {
    throw unsupported('Lookup', MISSING_LOOKUP)
  }
  async prefixLookup(): Promise<B.PrefixLookupResult[]> {
    throw unsupported('Prefix lookup', MISSING_LOOKUP)
  }
  async snapshot(): Promise<B.SnapshotResult> {
    throw unsupported('Snapshot', 'the TypeScript SDK has no batch scanner of KV snapshots yet')
  }
  async tieringStatus(): Promise<B.TieringStatus> {
    throw unsupported('Tiering status', 'lake tiering is not available in this cluster yet')
  }

  async scan(ctx: B.BackendContext, info: TableInfo, request: B.ScanRequest): Promise<B.ScanResult> {
    const open = await this.#table(info)
    const names = new Map<number, string>()
    if (info.isPartitioned) {
      for (const p of await this.#admin.listPartitionInfos(info.tablePath))
        names.set(p.partitionId, p.partitionName)
    }
    return scanLog(this.#admin, open.table, request, ctx.signal, names)
  }

  /** The open handle of a table, reopened when the table was recreated (new table id). */
  async #table(info: TableInfo): Promise<OpenTable> {
    const key = `${info.tablePath.databaseName}.${info.tablePath.tableName}`
    const held = this.#open.get(key)
    if (held !== undefined && held.table.getTableInfo().tableId === info.tableId) {
      this.#open.delete(key)
      this.#open.set(key, held)
      return held
    }
    this.#forget(info.tablePath)
    const open: OpenTable = { table: await this.connection.getTable(info.tablePath), upserters: new Map() }
    this.#open.set(key, open)
    while (this.#open.size > this.options.maxOpenTables) {
      const [oldest, evicted] = this.#open.entries().next().value as [string, OpenTable]
      this.#open.delete(oldest)
      closeWriters(evicted)
    }
    return open
  }

  #forget(path: TablePath): void {
    const key = `${path.databaseName}.${path.tableName}`
    const held = this.#open.get(key)
    if (held !== undefined) closeWriters(held)
    this.#open.delete(key)
  }
}

function closeWriters(open: OpenTable): void {
  open.appender?.close().catch(() => {})
  for (const w of open.upserters.values()) w.close().catch(() => {})
}
