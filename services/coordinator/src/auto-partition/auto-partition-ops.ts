import { tableInfoOf } from '@sluice/core/control-plane'
import type { ResolvedPartitionSpec, TableInfo } from '@sluice/core/metadata'
import type { CoordinatorServer } from '../server/coordinator-server.js'

/**
 * What an auto-partition manager needs from the coordinator (the table source and partition
 * operations of auto-partition/partition-ops.ts): the auto-partitioned tables the active coordinator
 * knows, their partitions, and partition DDL run like client DDL (serialized, active only, with
 * the same limits). A standby lists no tables.
 */
export interface AutoPartitionOps {
  listAutoPartitionedTables(): Promise<readonly TableInfo[]>
  listPartitions(tableId: number): Promise<readonly string[]>
  createPartition(table: TableInfo, spec: ResolvedPartitionSpec, ignoreIfExists: boolean): Promise<void>
  dropPartition(table: TableInfo, partitionName: string): Promise<void>
}

export function autoPartitionOps(server: CoordinatorServer): AutoPartitionOps {
  const { controller, catalog } = server
  return {
    listAutoPartitionedTables: async () =>
      server.isActive
        ? controller.context
            .tables()
            .map(tableInfoOf)
            .filter(t => t.isAutoPartitioned)
        : [],
    listPartitions: async tableId => (await catalog.listPartitions(tableId)).map(p => p.partitionName),
    createPartition: (table, spec, ignoreIfExists) =>
      server.runDdl(() => controller.partitions.createPartitionOf(table.tablePath, spec, ignoreIfExists)),
    dropPartition: (table, partitionName) =>
      server.runDdl(() => controller.partitions.dropPartitionNamed(table.tablePath, partitionName, true)),
  }
}
