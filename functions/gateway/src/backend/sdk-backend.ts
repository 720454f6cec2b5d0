import {
  Connection,
  encodedArrowBatch,
  type TableChanges,
  tableCompression,
  type ValidatedArrowBatch,
} from '@sluice/client'
import type { Row } from '@sluice/core'
import {
  CLIENT_WRITER_BATCH_SIZE,
  type Configuration,
  GATEWAY_REST_WRITE_ENCODER_THREADS,
} from '@sluice/core/config'
import type { DatabaseDescriptor, TableDescriptor, TableInfo, TablePath } from '@sluice/core/metadata'
import { AppendBodyEncoder } from '../codec/append-body-encoder.js'
import { exactArrowBatches, rowCountOf } from '../codec/append-body-encoding.js'
import type * as B from './gateway-backend.js'
import { lookupKeys, prefixColumns, prefixLookupRows, readSnapshot } from './sdk-reads.js'
import { scanLog } from './sdk-scan.js'
import {
  DEFAULT_SDK_BACKEND_OPTIONS,
  type OpenTable,
  OpenTables,
  type SdkBackendOptions,
} from './sdk-tables.js'
import { LakeAccess, unionReadRows } from './sdk-union.js'
import { writeArrowBatches, writeRows } from './sdk-write.js'
import { unsupported } from './unsupported.js'

/**
 * The gateway backend over the TypeScript SDK: one Connection (created once per process or Lambda
 * container) for DDL, writes (AppendWriter, UpsertWriter), log scans (LogScanner), lookups and
 * prefix lookups (Lookuper), bounded snapshots (limit batch scans) and union reads of lake and log.
 * Table handles, writers and lookupers are kept per table and shared by requests. Append bodies
 * that need no routing by row (JSON rows the direct reader takes, Arrow streams with exactly the
 * table's schema) are encoded into compressed log batches by an AppendBodyEncoder (on worker
 * threads: `gateway.rest.write.encoder-threads`) and appended whole (`prepareBodyAppend`,
 * AppendWriter.appendArrowBatches). Lake tiering status answers 501 `unsupported` until tiering
 * reports it.
 */
export class SdkBackend implements B.GatewayBackend {
  readonly #tables: OpenTables
  readonly #encoder: AppendBodyEncoder
  readonly #batchBytes: number

  constructor(
    readonly connection: Connection,
    options: SdkBackendOptions = DEFAULT_SDK_BACKEND_OPTIONS,
    private readonly lake: LakeAccess = new LakeAccess(undefined),
    encoding: { readonly encoder: AppendBodyEncoder; readonly batchBytes: number } = {
      encoder: new AppendBodyEncoder(0),
      batchBytes: CLIENT_WRITER_BATCH_SIZE.defaultValue as number,
    },
  ) {
    this.#tables = new OpenTables(connection, options)
    this.#encoder = encoding.encoder
    this.#batchBytes = encoding.batchBytes
  }

  /**
   * Connects to the cluster named by `bootstrap.servers` in `config`; union reads find the lake
   * under `sluice.blobstore.uri` when it is set; append bodies are encoded on
   * `gateway.rest.write.encoder-threads` worker threads, in log batches of up to
   * `client.writer.batch-size` uncompressed bytes.
   */
  static async connect(config: Configuration, options?: SdkBackendOptions): Promise<SdkBackend> {
    const encoding = {
      encoder: new AppendBodyEncoder(config.get(GATEWAY_REST_WRITE_ENCODER_THREADS)),
      batchBytes: config.get(CLIENT_WRITER_BATCH_SIZE),
    }
    try {
      return new SdkBackend(await Connection.create(config), options, LakeAccess.fromConfig(config), encoding)
    } catch (e) {
      await encoding.encoder.close()
      throw e
    }
  }

  /** Flushes open writers and closes the connection. */
  async close(): Promise<void> {
    this.#tables.clear()
    await this.#encoder.close()
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
  async alterTable(
    _ctx: B.BackendContext,
    path: TablePath,
    changes: TableChanges,
    ignoreIfNotExists: boolean,
  ) {
    try {
      await this.#admin.alterTable(path, changes, ignoreIfNotExists)
    } finally {
      // Writers and readers opened on the old schema are reopened on the next request.
      this.#tables.forget(path)
    }
  }
  getTableSchemas(_ctx: B.BackendContext, path: TablePath) {
    return this.#admin.getTableSchemas(path)
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

  async prepareBodyAppend(
    _ctx: B.BackendContext,
    info: TableInfo,
    body: B.AppendBody,
    limits: B.BodyAppendLimits,
  ): Promise<B.PreparedBodyAppend | undefined> {
    const open = await this.#tables.getExact(info)
    // The writer's own table info, so the writer takes the batches at once.
    const table = open.table.getTableInfo()
    if (table.isPartitioned || table.hasBucketKey) {
      // Rows may go to several buckets: JSON rows take the row path; an Arrow stream is validated
      // here and the writer routes its batches (whole where their rows share a bucket).
      return body.format === 'arrow' ? prepareArrowStream(open, table, body.bytes, limits) : undefined
    }
    const result = await this.#encoder.encode({
      format: body.format,
      bytes: body.bytes,
      tableKey: `${table.tableId}:${table.schemaId}`,
      rowType: table.rowType,
      compression: tableCompression(table),
      maxRows: limits.maxRows,
      maxJsonDepth: limits.maxJsonDepth,
      maxUncompressedBytes: limits.maxUncompressedBytes,
      batchBytes: this.#batchBytes,
    })
    if (result.kind !== 'encoded') return undefined
    const batches = result.messages.map(m => encodedArrowBatch(m, table.rowType))
    return {
      rowCount: result.rowCount,
      write: ctx => writeArrowBatches(open.appender(), batches, ctx.signal),
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

/** An Arrow stream with exactly the table's schema, validated here; its batches keep their codec. */
function prepareArrowStream(
  open: OpenTable,
  table: TableInfo,
  stream: Uint8Array,
  limits: B.BodyAppendLimits,
): B.PreparedBodyAppend | undefined {
  const batches = exactArrowBatches(stream, table.rowType, limits)
  if (batches === undefined) return undefined
  // Stored as the SDK stores rows: with the table's compression, whatever the body used.
  const options = { tableCompression: true, maxUncompressedBytes: limits.maxUncompressedBytes }
  const sink = {
    appendArrowBatches: (b: readonly ValidatedArrowBatch[]) => open.appender().appendArrowBatches(b, options),
  }
  return { rowCount: rowCountOf(batches), write: ctx => writeArrowBatches(sink, batches, ctx.signal) }
}
