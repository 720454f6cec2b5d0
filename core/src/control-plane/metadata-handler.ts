import { FlussError } from '../errors/index.js'
import { physicalTablePathToString, type TablePath } from '../metadata/index.js'
import type {
  MetadataRequest,
  MetadataResponseInit,
  PbPartitionMetadataInit,
  PbPhysicalTablePath,
  PbTableMetadataInit,
} from '../rpc/index.js'
import type { Catalog } from './catalog.js'
import type { PartitionRecord } from './partition-item.js'
import {
  bucketMetadata,
  coordinatorNode,
  tableMetadata,
  tabletServerNode,
  toTablePath,
} from './rpc-convert.js'
import type { TableRecord } from './table-items.js'

/**
 * GET_METADATA (Fluss's RpcServiceBase.processMetadataRequest): the active coordinator (absent when
 * no coordinator holds an unexpired lease), the live tablet servers (an empty list makes the Java
 * client treat the answer as stale and retry), the named tables with their buckets, and the named
 * partitions. Partition ids are looked up among the partitions of the tables named in the same
 * request. An unknown table fails the whole request with TABLE_NOT_EXIST, an unknown partition with
 * PARTITION_NOT_EXISTS. Endpoints are those of the listener the request came in on.
 */
export async function getMetadata(
  catalog: Catalog,
  request: MetadataRequest,
  listenerName?: string,
): Promise<MetadataResponseInit> {
  const [coordinator, servers] = await Promise.all([catalog.activeCoordinator(), catalog.liveTabletServers()])
  const tables = await Promise.all(request.tablePath.map(p => catalog.getTableOrThrow(toTablePath(p))))
  const tableMetadataList = await Promise.all(tables.map(t => tableMetadataOf(catalog, t)))
  const partitions = await resolvePartitions(catalog, request, tables)
  const partitionMetadata = await Promise.all(partitions.map(p => partitionMetadataOf(catalog, p)))
  return {
    ...(coordinator === undefined ? {} : { coordinatorServer: coordinatorNode(coordinator, listenerName) }),
    tabletServers: servers.map(s => tabletServerNode(s, listenerName)),
    tableMetadata: tableMetadataList,
    partitionMetadata,
  }
}

async function tableMetadataOf(catalog: Catalog, table: TableRecord): Promise<PbTableMetadataInit> {
  const buckets = table.descriptor.isPartitioned ? [] : await catalog.listBuckets(table.tableId, null)
  return tableMetadata(table, buckets)
}

async function partitionMetadataOf(catalog: Catalog, p: PartitionRecord): Promise<PbPartitionMetadataInit> {
  const buckets = await catalog.listBuckets(p.tableId, p.partitionId)
  return {
    tableId: p.tableId,
    partitionName: p.partitionName,
    partitionId: p.partitionId,
    bucketMetadata: buckets.map(bucketMetadata),
  }
}

async function resolvePartitions(
  catalog: Catalog,
  request: MetadataRequest,
  tables: readonly TableRecord[],
): Promise<PartitionRecord[]> {
  const byId = new Map<number, PartitionRecord>()
  for (const path of request.partitionsPath) {
    const p = await partitionByPath(catalog, path)
    byId.set(p.partitionId, p)
  }
  const wanted = request.partitionsId.filter(id => !byId.has(id))
  if (wanted.length === 0) return [...byId.values()]
  const candidates = new Map<number, PartitionRecord>()
  const partitioned = tables.filter(t => t.descriptor.isPartitioned)
  for (const t of partitioned) {
    for (const p of await catalog.listPartitions(t.tableId)) candidates.set(p.partitionId, p)
  }
  // A partition created after the cached list was read: confirm a miss by reading through.
  if (catalog.cached && wanted.some(id => !candidates.has(id))) {
    for (const t of partitioned) {
      for (const p of await catalog.direct.listPartitions(t.tableId)) candidates.set(p.partitionId, p)
    }
  }
  for (const id of wanted) {
    const p = candidates.get(id)
    if (p === undefined) {
      throw new FlussError(
        'PARTITION_NOT_EXISTS',
        `The partition id '${id}' does not exist or you don't have permission to access it.`,
      )
    }
    byId.set(id, p)
  }
  return [...byId.values()]
}

async function partitionByPath(catalog: Catalog, pb: PbPhysicalTablePath): Promise<PartitionRecord> {
  const tablePath: TablePath = { databaseName: pb.databaseName, tableName: pb.tableName }
  const name = pb.partitionName ?? undefined
  const table = await catalog.getTable(tablePath)
  const p =
    table === undefined || name === undefined ? undefined : await catalog.getPartition(table.tableId, name)
  if (p === undefined || p.state !== 'READY') {
    const printable = physicalTablePathToString({
      tablePath,
      ...(name === undefined ? {} : { partitionName: name }),
    })
    throw new FlussError('PARTITION_NOT_EXISTS', `Table partition '${printable}' does not exist.`)
  }
  return p
}
