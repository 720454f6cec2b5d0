import {
  type ResolvedPartitionSpec,
  resolvedPartitionSpec,
  type TablePath,
  tableDescriptorToJson,
} from '../metadata/index.js'
import type {
  PbBucketMetadataInit,
  PbPartitionSpec,
  PbPartitionSpecInit,
  PbServerNodeInit,
  PbTableMetadataInit,
  PbTablePath,
} from '../rpc/index.js'
import type { BucketRecord } from './bucket-item.js'
import {
  type CoordinatorLeaseRecord,
  serverEndpointFor,
  type TabletServerLeaseRecord,
} from './lease-items.js'
import type { TableRecord } from './table-items.js'

/** Conversions between catalog records and Fluss protobuf messages. */

export function toTablePath(pb: PbTablePath): TablePath {
  return { databaseName: pb.databaseName, tableName: pb.tableName }
}

export function toPbTablePath(path: TablePath): { databaseName: string; tableName: string } {
  return { databaseName: path.databaseName, tableName: path.tableName }
}

/** The TableDescriptor JSON Fluss clients parse (GET_TABLE_INFO, PbTableMetadata.table_json). */
export function tableJsonBytes(table: TableRecord): Buffer {
  return Buffer.from(tableDescriptorToJson(table.descriptor), 'utf8')
}

/**
 * The active coordinator as a PbServerNode. Its node id is its coordinatorEpoch: Fluss clients key
 * connections by node id, so a coordinator fail-over gives clients a new node to connect to instead
 * of reusing a connection to the deposed one.
 */
export function coordinatorNode(
  lease: CoordinatorLeaseRecord,
  listenerName: string | undefined,
): PbServerNodeInit {
  const { host, port } = serverEndpointFor(lease, listenerName)
  return { nodeId: lease.coordinatorEpoch, host, port }
}

export function tabletServerNode(
  lease: TabletServerLeaseRecord,
  listenerName: string | undefined,
): PbServerNodeInit {
  const { host, port } = serverEndpointFor(lease, listenerName)
  return lease.rack === null
    ? { nodeId: lease.serverId, host, port }
    : { nodeId: lease.serverId, host, port, rack: lease.rack }
}

/** Bucket metadata as clients route by it: leader absent while there is none. */
export function bucketMetadata(bucket: BucketRecord): PbBucketMetadataInit {
  const l = bucket.leaderAndIsr
  return {
    bucketId: bucket.ref.bucket,
    ...(l.leader === null ? {} : { leaderId: l.leader }),
    replicaId: [...l.replicas],
    leaderEpoch: l.leaderEpoch,
    isrId: [...l.isr],
  }
}

export function tableMetadata(table: TableRecord, buckets: readonly BucketRecord[]): PbTableMetadataInit {
  return {
    tablePath: toPbTablePath(table.tablePath),
    tableId: table.tableId,
    schemaId: table.schemaId,
    tableJson: tableJsonBytes(table),
    bucketMetadata: [...buckets].sort((a, b) => a.ref.bucket - b.ref.bucket).map(bucketMetadata),
    createdTime: table.createdTimeMs,
    modifiedTime: table.modifiedTimeMs,
  }
}

/** A partition spec as given on the wire: keys and values in the order sent. */
export function fromPbPartitionSpec(pb: PbPartitionSpec): ResolvedPartitionSpec {
  return resolvedPartitionSpec(
    pb.partitionKeyValues.map(kv => kv.key),
    pb.partitionKeyValues.map(kv => kv.value),
  )
}

export function toPbPartitionSpec(spec: ResolvedPartitionSpec): PbPartitionSpecInit {
  return {
    partitionKeyValues: spec.partitionKeys.map((key, i) => ({ key, value: spec.partitionValues[i] })),
  }
}
