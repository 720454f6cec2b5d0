import { bucketCountOf, createPartition, dropPartition, type TableRecord } from '@sluice/core/control-plane'
import { assert, FlussError } from '@sluice/core/errors'
import {
  partitionSpecFromName,
  type ResolvedPartitionSpec,
  type TablePath,
  toPartitionSpec,
  validatePartitionSpec,
} from '@sluice/core/metadata'
import type { PbPartitionSpec } from '@sluice/core/rpc'
import { assignReplicas } from '../assignment/assignment.js'
import { retriableWhileServersJoin } from '../membership/servers-joining.js'
import { type DdlDeps, placement } from './table-ddl-service.js'

/**
 * Partition DDL of the active coordinator (Fluss's createPartition/dropPartition): the spec must
 * name every partition key with a valid value; a new partition gets its own bucket assignment over
 * the live servers, limited by `max.partition.num` and `max.bucket.num`.
 */
export class PartitionDdlService {
  readonly #deps: DdlDeps

  constructor(deps: DdlDeps) {
    this.#deps = deps
  }

  async createPartition(path: TablePath, pbSpec: PbPartitionSpec, ignoreIfExists: boolean): Promise<void> {
    const table = await this.#partitionedTable(path, 'create')
    await this.#create(table, this.#resolve(table, pbSpec, true), ignoreIfExists)
  }

  async dropPartition(path: TablePath, pbSpec: PbPartitionSpec, ignoreIfNotExists: boolean): Promise<void> {
    const table = await this.#partitionedTable(path, 'drop')
    await this.#drop(table, this.#resolve(table, pbSpec, false), ignoreIfNotExists)
  }

  /** Creates a partition from values in partition-key order (the auto-partition manager's form). */
  async createPartitionOf(
    path: TablePath,
    spec: ResolvedPartitionSpec,
    ignoreIfExists: boolean,
  ): Promise<void> {
    const table = await this.#partitionedTable(path, 'create')
    await this.#create(table, this.#resolveKeys(table, spec, true), ignoreIfExists)
  }

  /** Drops a partition by name (values joined by `$`). */
  async dropPartitionNamed(
    path: TablePath,
    partitionName: string,
    ignoreIfNotExists: boolean,
  ): Promise<void> {
    const table = await this.#partitionedTable(path, 'drop')
    const spec = partitionSpecFromName(table.descriptor.partitionKeys, partitionName)
    await this.#drop(table, this.#resolveKeys(table, spec, false), ignoreIfNotExists)
  }

  async #create(table: TableRecord, spec: ResolvedPartitionSpec, ignoreIfExists: boolean): Promise<void> {
    const replicationFactor = table.descriptor.replicationFactor
    assert(replicationFactor !== undefined, 'a created table has a replication factor')
    const live = this.#deps.membership.live()
    let assignment: number[][]
    try {
      assignment = assignReplicas(
        bucketCountOf(table),
        replicationFactor,
        live.map(placement),
        this.#deps.assignment,
      )
    } catch (e) {
      throw await retriableWhileServersJoin(e, this.#deps.membership)
    }
    const created = await createPartition(this.#deps.catalog, {
      table,
      spec,
      assignment,
      coordinatorEpoch: this.#deps.coordinatorEpoch(),
      ignoreIfExists,
      maxPartitionNum: this.#deps.settings.maxPartitionNum,
      maxBucketNum: this.#deps.settings.maxBucketNum,
    })
    if (created === undefined) return
    if (created.replaced !== undefined)
      this.#deps.cleanup.cleanupPartition(created.replaced, bucketCountOf(table))
    if (this.#deps.context.table(table.tableId) === undefined) this.#deps.context.putTable(table)
    this.#deps.context.putPartition(created.partition)
    for (const bucket of created.buckets) {
      this.#deps.context.putBucket(bucket)
      this.#deps.leadership.notifyReplicas(bucket)
    }
  }

  async #drop(table: TableRecord, spec: ResolvedPartitionSpec, ignoreIfNotExists: boolean): Promise<void> {
    const dropped = await dropPartition(this.#deps.catalog, table, spec, ignoreIfNotExists)
    if (dropped === undefined) return
    this.#deps.context.removePartition(dropped.partitionId)
    this.#deps.cleanup.cleanupPartition(dropped, bucketCountOf(table))
  }

  async #partitionedTable(path: TablePath, action: 'create' | 'drop'): Promise<TableRecord> {
    const table = await this.#deps.catalog.getTableOrThrow(path)
    if (!table.descriptor.isPartitioned) {
      throw new FlussError(
        'TABLE_NOT_PARTITIONED_EXCEPTION',
        `Only partitioned table support ${action} partition.`,
      )
    }
    return table
  }

  #resolve(table: TableRecord, pbSpec: PbPartitionSpec, isCreate: boolean): ResolvedPartitionSpec {
    const spec = new Map(pbSpec.partitionKeyValues.map(kv => [kv.key, kv.value]))
    return validatePartitionSpec(table.tablePath, table.descriptor.partitionKeys, spec, isCreate)
  }

  #resolveKeys(table: TableRecord, spec: ResolvedPartitionSpec, isCreate: boolean): ResolvedPartitionSpec {
    return validatePartitionSpec(
      table.tablePath,
      table.descriptor.partitionKeys,
      toPartitionSpec(spec),
      isCreate,
    )
  }
}
