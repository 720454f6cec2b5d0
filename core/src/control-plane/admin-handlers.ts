import { FlussError } from '../errors/index.js'
import {
  databaseDescriptorToJson,
  partitionSpecContains,
  partitionSpecFromName,
  schemaToJson,
  type TablePath,
  tablePathToString,
} from '../metadata/index.js'
import type { ApiRequest, ApiResponseInit, Handlers } from '../rpc/index.js'
import type { Catalog } from './catalog.js'
import { fileSystemSecurityToken, getLakeSnapshot } from './lake-offsets.js'
import { getMetadata } from './metadata-handler.js'
import { fromPbPartitionSpec, tableJsonBytes, toPbPartitionSpec, toTablePath } from './rpc-convert.js'
import { bucketCountOf, type TableRecord } from './table-items.js'

/**
 * Fluss's AdminReadOnlyGateway, answered from the catalog. Fluss clients send these to a random
 * tablet server (and to the coordinator), so both server roles register the same functions:
 *
 *   server.registerAll(readOnlyAdminHandlers(catalog))
 *
 * Each function takes the catalog and the decoded request and returns the response to encode, or
 * throws the FlussError Fluss would answer with.
 */
export type ReadOnlyAdminApi =
  | 'LIST_DATABASES'
  | 'DATABASE_EXISTS'
  | 'GET_DATABASE_INFO'
  | 'LIST_TABLES'
  | 'TABLE_EXISTS'
  | 'GET_TABLE_INFO'
  | 'GET_TABLE_SCHEMA'
  | 'LIST_PARTITION_INFOS'
  | 'GET_METADATA'
  | 'GET_LATEST_KV_SNAPSHOTS'
  | 'GET_LAKE_SNAPSHOT'
  | 'GET_FILESYSTEM_SECURITY_TOKEN'

type Req<K extends ReadOnlyAdminApi> = ApiRequest<K>
type Res<K extends ReadOnlyAdminApi> = Promise<ApiResponseInit<K>>

export async function listDatabases(catalog: Catalog, req: Req<'LIST_DATABASES'>): Res<'LIST_DATABASES'> {
  const databases = await catalog.listDatabases()
  if (req.includeSummary !== true) return { databaseName: databases.map(d => d.databaseName) }
  const databaseSummary = await Promise.all(
    databases.map(async d => ({
      databaseName: d.databaseName,
      createdTime: d.createdTimeMs,
      tableCount: (await catalog.listTables(d.databaseName).catch(() => [])).length,
    })),
  )
  return { databaseSummary }
}

export async function databaseExists(catalog: Catalog, req: Req<'DATABASE_EXISTS'>): Res<'DATABASE_EXISTS'> {
  return { exists: await catalog.databaseExists(req.databaseName) }
}

export async function getDatabaseInfo(
  catalog: Catalog,
  req: Req<'GET_DATABASE_INFO'>,
): Res<'GET_DATABASE_INFO'> {
  const db = await catalog.getDatabaseOrThrow(req.databaseName)
  return {
    databaseJson: Buffer.from(databaseDescriptorToJson(db.descriptor), 'utf8'),
    createdTime: db.createdTimeMs,
    modifiedTime: db.modifiedTimeMs,
  }
}

export async function listTables(catalog: Catalog, req: Req<'LIST_TABLES'>): Res<'LIST_TABLES'> {
  return { tableName: await catalog.listTables(req.databaseName) }
}

export async function tableExists(catalog: Catalog, req: Req<'TABLE_EXISTS'>): Res<'TABLE_EXISTS'> {
  return { exists: await catalog.tableExists(toTablePath(req.tablePath)) }
}

/**
 * Read through any cache: a client that opens a table right after an ALTER TABLE (on another
 * connection, through another server) gets the committed schema, not a cached older one.
 */
export async function getTableInfo(catalog: Catalog, req: Req<'GET_TABLE_INFO'>): Res<'GET_TABLE_INFO'> {
  const table = await catalog.direct.getTableOrThrow(toTablePath(req.tablePath))
  return {
    tableId: table.tableId,
    schemaId: table.schemaId,
    tableJson: tableJsonBytes(table),
    createdTime: table.createdTimeMs,
    modifiedTime: table.modifiedTimeMs,
  }
}

/**
 * The schema by id, or the current one; Fluss answers SCHEMA_NOT_EXIST also for a missing table.
 * An id above the table's current one is asked of the store directly (a cached table item may be
 * older than the client's metadata), and is SCHEMA_NOT_EXIST while it is above the stored table's
 * id too (a schema item of an ALTER that has not committed).
 */
export async function getTableSchema(
  catalog: Catalog,
  req: Req<'GET_TABLE_SCHEMA'>,
): Res<'GET_TABLE_SCHEMA'> {
  const path = toTablePath(req.tablePath)
  let table = await catalog.getTable(path)
  if (table !== undefined && req.schemaId !== null && req.schemaId > table.schemaId)
    table = await catalog.direct.getTable(path)
  const schemaId = req.schemaId ?? table?.schemaId ?? 0
  const schema =
    table !== undefined && schemaId <= table.schemaId
      ? await catalog.getSchema(table.tableId, schemaId)
      : undefined
  if (schema === undefined) {
    throw new FlussError(
      'SCHEMA_NOT_EXIST',
      `Schema for table ${tablePathToString(path)} with schema id ${schemaId} does not exist.`,
    )
  }
  return { schemaId, schemaJson: Buffer.from(schemaToJson(schema.schema), 'utf8') }
}

async function partitionedTable(catalog: Catalog, path: TablePath): Promise<TableRecord> {
  const table = await catalog.getTableOrThrow(path)
  if (!table.descriptor.isPartitioned) {
    throw new FlussError(
      'TABLE_NOT_PARTITIONED_EXCEPTION',
      `Table '${tablePathToString(table.tablePath)}' is not a partitioned table.`,
    )
  }
  return table
}

export async function listPartitionInfos(
  catalog: Catalog,
  req: Req<'LIST_PARTITION_INFOS'>,
): Res<'LIST_PARTITION_INFOS'> {
  const table = await partitionedTable(catalog, toTablePath(req.tablePath))
  const keys = table.descriptor.partitionKeys
  const filter = req.partialPartitionSpec === null ? undefined : fromPbPartitionSpec(req.partialPartitionSpec)
  // Read through: a client lists partitions right after creating one.
  const partitions = await catalog.direct.listPartitions(table.tableId)
  const partitionsInfo = partitions
    .map(p => ({ partitionId: p.partitionId, spec: partitionSpecFromName(keys, p.partitionName) }))
    .filter(p => filter === undefined || partitionSpecContains(p.spec, filter))
    .map(p => ({ partitionId: p.partitionId, partitionSpec: toPbPartitionSpec(p.spec) }))
  return { partitionsInfo }
}

/**
 * No KV snapshots exist yet: every bucket is listed with only its id, which makes readers start
 * primary-key tables from the earliest changelog offset (fluss-protocol.md §7.1, tier C).
 */
export async function getLatestKvSnapshots(
  catalog: Catalog,
  req: Req<'GET_LATEST_KV_SNAPSHOTS'>,
): Res<'GET_LATEST_KV_SNAPSHOTS'> {
  const table = await catalog.getTableOrThrow(toTablePath(req.tablePath))
  const path = tablePathToString(table.tablePath)
  const partitioned = table.descriptor.isPartitioned
  if (!table.descriptor.hasPrimaryKey) {
    throw new FlussError(
      'NON_PRIMARY_KEY_TABLE_EXCEPTION',
      `Table '${path}' is not a primary key table, so it doesn't have any kv snapshots.`,
    )
  }
  if (req.partitionName !== null && !partitioned) {
    throw new FlussError('TABLE_NOT_PARTITIONED_EXCEPTION', `Table '${path}' is not a partitioned table.`)
  }
  if (req.partitionName === null && partitioned) {
    throw new FlussError(
      'PARTITION_NOT_EXISTS',
      `Table '${path}' is a partitioned table, but partition name is not provided.`,
    )
  }
  const latestSnapshots = Array.from({ length: bucketCountOf(table) }, (_, bucketId) => ({ bucketId }))
  if (req.partitionName === null) return { tableId: table.tableId, latestSnapshots }
  const partition = await catalog.getPartition(table.tableId, req.partitionName)
  if (partition === undefined || partition.state !== 'READY') {
    throw new FlussError(
      'PARTITION_NOT_EXISTS',
      `The partition '${req.partitionName}' of table '${path}' does not exist.`,
    )
  }
  return { tableId: table.tableId, partitionId: partition.partitionId, latestSnapshots }
}

export interface ReadOnlyAdminOptions {
  /**
   * `remote.data.dir` as clients reach it (its scheme answers GET_FILESYSTEM_SECURITY_TOKEN);
   * default: local files.
   */
  readonly remoteDataDir?: string
}

/** The read-only admin handlers, ready for `RpcServer.registerAll`. */
export function readOnlyAdminHandlers(
  catalog: Catalog,
  options: ReadOnlyAdminOptions = {},
): Handlers<ReadOnlyAdminApi> {
  const token = fileSystemSecurityToken(options.remoteDataDir ?? 'file:///')
  return {
    GET_LAKE_SNAPSHOT: req => getLakeSnapshot(catalog, req),
    GET_FILESYSTEM_SECURITY_TOKEN: async () => token,
    LIST_DATABASES: req => listDatabases(catalog, req),
    DATABASE_EXISTS: req => databaseExists(catalog, req),
    GET_DATABASE_INFO: req => getDatabaseInfo(catalog, req),
    LIST_TABLES: req => listTables(catalog, req),
    TABLE_EXISTS: req => tableExists(catalog, req),
    GET_TABLE_INFO: req => getTableInfo(catalog, req),
    GET_TABLE_SCHEMA: req => getTableSchema(catalog, req),
    LIST_PARTITION_INFOS: req => listPartitionInfos(catalog, req),
    GET_METADATA: (req, ctx) => getMetadata(catalog, req, ctx.connection.listenerName),
    GET_LATEST_KV_SNAPSHOTS: req => getLatestKvSnapshots(catalog, req),
  }
}
