import { FlussError, toFlussError } from '@sluice/core/errors'
import { partitionSpecFromName, type TableBucket, type TableInfo } from '@sluice/core/metadata'
import type { ProduceLogRequestInit, ProduceLogResponse } from '@sluice/core/rpc'
import type { Admin } from '../admin/admin.js'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { WriterNetwork } from './sender.js'

/** The writer's view of the cluster through the connection's MetadataUpdater. */
export class MetadataWriterNetwork implements WriterNetwork {
  readonly tableId: number

  constructor(
    readonly metadata: MetadataUpdater,
    readonly admin: Admin,
    readonly info: TableInfo,
    readonly dynamicCreatePartition: boolean,
  ) {
    this.tableId = info.tableId
  }

  partitionId(partitionName: string): number | undefined {
    return this.metadata.cluster.partitionId(this.tableId, partitionName)
  }

  leaderFor(tb: TableBucket): ServerNode | undefined {
    return this.metadata.cluster.leaderFor(tb)
  }

  /** Buckets with a known leader; none (any bucket may then be picked) while a partition is unknown. */
  availableBuckets(partitionName: string | undefined): readonly number[] {
    const cluster = this.metadata.cluster
    if (partitionName === undefined) return cluster.availableBuckets(this.tableId)
    const partitionId = cluster.partitionId(this.tableId, partitionName)
    return partitionId === undefined ? [] : cluster.availableBuckets(this.tableId, partitionId)
  }

  async refresh(partitionName: string | undefined): Promise<void> {
    const path = this.info.tablePath
    if (partitionName === undefined) {
      await this.metadata.update({ tables: [path] })
      return
    }
    const query = { tables: [path], partitions: [{ tablePath: path, partitionName }] }
    try {
      await this.metadata.update(query)
    } catch (e) {
      const error = toFlussError(e)
      if (!error.is('PARTITION_NOT_EXISTS') || !this.dynamicCreatePartition) throw error
      const spec = partitionSpecFromName(this.info.partitionKeys, partitionName)
      const values = Object.fromEntries(spec.partitionKeys.map((k, i) => [k, spec.partitionValues[i]]))
      await this.admin.createPartition(path, values, true)
      await this.metadata.update(query)
    }
    if (this.partitionId(partitionName) === undefined) {
      throw new FlussError(
        'PARTITION_NOT_EXISTS',
        `Partition ${partitionName} of ${path.databaseName}.${path.tableName} is not in the metadata`,
      )
    }
  }

  invalidate(partitionId: number | undefined): void {
    this.metadata.invalidate(this.tableId, partitionId)
  }

  produce(node: ServerNode, request: ProduceLogRequestInit): Promise<ProduceLogResponse> {
    return this.metadata.request(node, 'PRODUCE_LOG', request)
  }

  async initWriter(): Promise<number> {
    const path = this.info.tablePath
    const request = { tablePath: [{ databaseName: path.databaseName, tableName: path.tableName }] }
    const response = await this.metadata.requestAnyServer('INIT_WRITER', request)
    return response.writerId
  }
}
