import { parseListeners } from '@sluice/core/control-plane'
import { TableInfo, tableDescriptorFromJson } from '@sluice/core/metadata'
import type { ApiRequest } from '@sluice/core/rpc'
import type { SchemaCache } from '../replica/schema-cache.js'
import type { TabletMetadataCache } from '../replica/tablet-metadata-cache.js'

/**
 * Applies an UPDATE_METADATA to the cache: tablet server endpoints (from `listeners` when given,
 * else host/port on the default listener) and the tables, partitions and bucket counts it names.
 */
export function updateMetadataCache(
  cache: TabletMetadataCache,
  request: ApiRequest<'UPDATE_METADATA'>,
): void {
  for (const node of request.tabletServers) {
    const fromListeners = node.listeners === null ? [] : listenersOrNone(node.listeners)
    const endpoints =
      fromListeners.length > 0 ? fromListeners : [{ listenerName: 'FLUSS', host: node.host, port: node.port }]
    cache.setServer(node.nodeId, endpoints)
  }
  for (const table of request.tableMetadata) {
    cache.addTable(table.tableId, bucketCount(table.bucketMetadata))
  }
  for (const partition of request.partitionMetadata) {
    cache.addPartition(partition.tableId, partition.partitionId, bucketCount(partition.bucketMetadata))
  }
}

/**
 * The schemas of the tables an UPDATE_METADATA names (the coordinator sends one after ALTER TABLE
 * changed a table's schema): hosted tables learn their new schema at once. A table whose JSON does
 * not parse is skipped (its schemas are still loaded when a batch names them).
 */
export function updateSchemas(schemas: SchemaCache, request: ApiRequest<'UPDATE_METADATA'>): void {
  for (const t of request.tableMetadata) {
    let info: TableInfo
    try {
      const path = { databaseName: t.tablePath.databaseName, tableName: t.tablePath.tableName }
      const descriptor = tableDescriptorFromJson(t.tableJson)
      info = TableInfo.of(path, t.tableId, t.schemaId, descriptor, t.createdTime, t.modifiedTime)
    } catch {
      continue
    }
    schemas.tableChanged(info)
  }
}

function bucketCount(buckets: readonly { bucketId: number }[]): number {
  let count = 0
  for (const b of buckets) count = Math.max(count, b.bucketId + 1)
  return count
}

/** A malformed `listeners` value falls back to the node's host/port. */
function listenersOrNone(text: string) {
  try {
    return parseListeners(text, 'UpdateMetadata listeners')
  } catch {
    return []
  }
}
