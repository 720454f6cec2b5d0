import { FlussError, toFlussError } from '@sluice/core/errors'
import { partitionSpecFromName, type TableBucket, type TableInfo } from '@sluice/core/metadata'
import { exponentialBackoffMs, sleep } from '@sluice/core/util'
import type { Admin } from '../admin/admin.js'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { BucketWriteResult, WriteRequest, WriteResponse, WriterNetwork } from './sender.js'

/**
 * How a writer's batches travel: PRODUCE_LOG for log tables; PUT_KV for primary-key tables, with
 * the writer's target columns (a partial update; undefined = every column) and merge mode
 * (`agg_mode`: 0 = through the merge engine, 1 = overwrite).
 */
export type WriteApi =
  | { readonly kind: 'PRODUCE_LOG' }
  | {
      readonly kind: 'PUT_KV'
      readonly targetColumns: readonly number[] | undefined
      readonly aggMode: number
    }

/** The writer's view of the cluster through the connection's MetadataUpdater. */
export class ClusterWriterNetwork implements WriterNetwork {
  readonly tableId: number

  constructor(
    readonly metadata: MetadataUpdater,
    readonly admin: Admin,
    readonly info: TableInfo,
    readonly dynamicCreatePartition: boolean,
    readonly api: WriteApi = { kind: 'PRODUCE_LOG' },
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
      await this.updateUntilPartitionVisible(query)
    }
    if (this.partitionId(partitionName) === undefined) {
      throw new FlussError(
        'PARTITION_NOT_EXISTS',
        `Partition ${partitionName} of ${path.databaseName}.${path.tableName} is not in the metadata`,
      )
    }
  }

  /**
   * A just-created partition may not be visible yet on the server asked (metadata answers may come
   * from a cache): retry PARTITION_NOT_EXISTS with backoff, within the request timeout.
   */
  private async updateUntilPartitionVisible(query: Parameters<MetadataUpdater['update']>[0]): Promise<void> {
    const deadline = Date.now() + this.metadata.requestTimeoutMs
    for (let attempt = 0; ; attempt++) {
      try {
        await this.metadata.update(query)
        return
      } catch (e) {
        const error = toFlussError(e)
        if (!error.is('PARTITION_NOT_EXISTS') || Date.now() >= deadline) throw error
        await sleep(exponentialBackoffMs(attempt, 20, 500))
      }
    }
  }

  invalidate(partitionId: number | undefined): void {
    this.metadata.invalidate(this.tableId, partitionId)
  }

  async write(node: ServerNode, request: WriteRequest): Promise<WriteResponse> {
    const { acks, tableId, timeoutMs } = request
    const bucketsReq = [...request.bucketsReq]
    if (this.api.kind === 'PRODUCE_LOG') {
      const response = await this.metadata.request(node, 'PRODUCE_LOG', {
        acks,
        tableId,
        timeoutMs,
        bucketsReq,
      })
      return { bucketsResp: response.bucketsResp.map(r => bucketResult(r, r.baseOffset)) }
    }
    const { targetColumns, aggMode } = this.api
    const putKv = {
      acks,
      tableId,
      timeoutMs,
      bucketsReq,
      aggMode,
      ...(targetColumns === undefined ? {} : { targetColumns: [...targetColumns] }),
    }
    const response = await this.metadata.request(node, 'PUT_KV', putKv)
    return { bucketsResp: response.bucketsResp.map(r => bucketResult(r, r.logEndOffset)) }
  }

  async initWriter(): Promise<number> {
    const path = this.info.tablePath
    const request = { tablePath: [{ databaseName: path.databaseName, tableName: path.tableName }] }
    const response = await this.metadata.requestAnyServer('INIT_WRITER', request)
    return response.writerId
  }
}

/** Decoded messages keep unset fields on their prototype, so fields are copied one by one. */
function bucketResult(
  r: { partitionId: number | null; bucketId: number; errorCode: number | null; errorMessage: string | null },
  offset: number | null,
): BucketWriteResult {
  return {
    partitionId: r.partitionId,
    bucketId: r.bucketId,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    offset,
  }
}
