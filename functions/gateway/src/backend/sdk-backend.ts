import { Connection, type ValidatedArrowBatch, validateArrowStream } from '@sluice/client'
import type { Row } from '@sluice/core'
import type { Configuration } from '@sluice/core/config'
import type { DatabaseDescriptor, TableDescriptor, TableInfo, TablePath } from '@sluice/core/metadata'
import type * as B from './gateway-backend.js'
import { lookupKeys, prefixColumns, prefixLookupRows, readSnapshot } from './sdk-reads.js'
import { scanLog } from './sdk-scan.js'
import { DEFAULT_SDK_BACKEND_OPTIONS, OpenTables, type SdkBackendOptions } from './sdk-tables.js'
import { LakeAccess, unionReadRows } from './sdk-union.js'
import { writeArrowBatches, writeRows } from './sdk-write.js'
import { unsupported } from './unsupported.js'

/**
 * The gateway backend over the TypeScript SDK: one Connection (created once per process or Lambda
 * container) for DDL, writes (AppendWriter, UpsertWriter), log scans (LogScanner), lookups and
 * prefix lookups (Lookuper), bounded snapshots (limit batch scans) and union reads of lake and log.
 * Table handles, writers and lookupers are kept per table and shared by requests. Arrow append
 * bodies whose schema is exactly the table's go to the cluster as log batches as they are
 * (`prepareArrowAppend`, AppendWriter.appendArrowBatches). Lake tiering status answers 501
 * `unsupported` until tiering reports it.
 */
export class SdkBackend implements B.GatewayBackend {
  readonly #tables: OpenTables

  constructor(
    readonly connection: Connection,
    options: SdkBackendOptions = DEFAULT_SDK_BACKEND_OPTIONS,
    private readonly lake: LakeAccess = new LakeAccess(undefined),
  ) {
    this.#tables = new OpenTables(connection, options)
  }

  /**
   * Connects to the cluster named by `bootstrap.servers` in `config`; union reads find the lake
   * under `sluice.blobstore.uri` when it is set.
   */
  static async connect(config: Configuration, options?: SdkBackendOptions): Promise<SdkBackend> {
    return new SdkBackend(await Connection.create(config), options, LakeAccess.fromConfig(config))
  }

  /** Flushes open writers and closes the connection. */
  async close(): Promise<void> {
    this.#tables.clear()
    await this.lake.close()
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
    this.#tables.forget(path)
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
    const writer = (await this.#tables.getExact(info)).appender()
    return writeRows(
      { write: row => writer.appendWithResult(row), flush: () => writer.flush() },
      rows,
      ctx.signal,
    )
  }

  async prepareArrowAppend(
    _ctx: B.BackendContext,
    info: TableInfo,
    stream: Uint8Array,
    limits: B.ArrowAppendLimits,
  ): Promise<B.PreparedArrowAppend | undefined> {
    const open = await this.#tables.getExact(info)
    let batches: ValidatedArrowBatch[]
    try {
      // Validated against the writer's own row type, so the writer takes the batches at once.
      const rowType = open.table.getTableInfo().rowType
      batches = validateArrowStream(stream, rowType, { maxUncompressedBytes: limits.maxUncompressedBytes })
    } catch {
      return undefined // not an exact match (or not valid): the row path decodes it and says why
    }
    const rowCount = batches.reduce((sum, b) => sum + b.recordCount, 0)
    if (rowCount === 0 || rowCount > limits.maxRows) return undefined
    return {
      rowCount,
      // Stored as the SDK stores rows: with the table's compression, whatever the body used.
      write: ctx => {
        const writer = open.appender()
        const sink = {
          appendArrowBatches: (b: readonly ValidatedArrowBatch[]) =>
            writer.appendArrowBatches(b, {
              tableCompression: true,
              maxUncompressedBytes: limits.maxUncompressedBytes,
            }),
        }
        return writeArrowBatches(sink, batches, ctx.signal)
      },
    }
  }

  async upsert(
    ctx: B.BackendContext,
    info: TableInfo,
    rows: readonly Row[],
    targetColumns?: readonly string[],
  ) {
    const writer = (await this.#tables.getExact(info)).upserter(targetColumns)
    const targets = targetColumns?.map(name => info.rowType.fields.findIndex(f => f.name === name))
    const input = targets === undefined ? (row: Row) => row : (row: Row) => targets.map(i => row[i])
    const sink = { write: (row: Row) => writer.upsertWithResult(input(row)), flush: () => writer.flush() }
    return writeRows(sink, rows, ctx.signal)
  }

  async delete(ctx: B.BackendContext, info: TableInfo, rows: readonly Row[]): Promise<B.WriteResult> {
    const writer = (await this.#tables.getExact(info)).upserter(undefined)
    return writeRows(
      { write: row => writer.deleteWithResult(row), flush: () => writer.flush() },
      rows,
      ctx.signal,
    )
  }

  async lookup(_ctx: B.BackendContext, info: TableInfo, keys: readonly Row[]): Promise<(Row | null)[]> {
    return lookupKeys((await this.#tables.getExact(info)).lookuper(), info, keys)
  }

  async prefixLookup(
    _ctx: B.BackendContext,
    info: TableInfo,
    lookupColumns: readonly string[],
    prefixes: readonly Row[],
    maxRowsPerPrefix: number,
  ): Promise<B.PrefixLookupResult[]> {
    const columns = prefixColumns(info, lookupColumns)
    const lookuper = (await this.#tables.getExact(info)).prefixLookuper(columns)
    return prefixLookupRows(lookuper, info, columns, prefixes, maxRowsPerPrefix)
  }

  async snapshot(
    ctx: B.BackendContext,
    info: TableInfo,
    request: B.SnapshotRequest,
  ): Promise<B.SnapshotResult> {
    return readSnapshot((await this.#tables.get(info)).table, request, ctx.signal)
  }

  async unionRead(ctx: B.BackendContext, info: TableInfo, request: B.UnionReadRequest) {
    return unionReadRows(this.connection, await this.lake.source(), info, request, ctx.signal)
  }

  async tieringStatus(): Promise<B.TieringStatus> {
    throw unsupported('Tiering status', 'the gateway does not read the cluster tiering metadata yet')
  }

  async scan(ctx: B.BackendContext, info: TableInfo, request: B.ScanRequest): Promise<B.ScanResult> {
    const open = await this.#tables.get(info)
    const names = new Map<number, string>()
    if (info.isPartitioned) {
      for (const p of await this.#admin.listPartitionInfos(info.tablePath))
        names.set(p.partitionId, p.partitionName)
    }
    return scanLog(this.#admin, open.table, request, ctx.signal, names)
  }
}
