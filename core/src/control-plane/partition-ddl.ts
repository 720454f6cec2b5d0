import { FlussError } from '../errors/index.js'
import {
  partitionName as nameOf,
  partitionQualifiedName,
  type ResolvedPartitionSpec,
  tablePathToString,
} from '../metadata/index.js'
import {
  type AllocateIdOptions,
  allocateId,
  COUNTERS,
  isMetaStoreConflict,
  partitionKey,
} from '../metastore/index.js'
import type { BucketRecord } from './bucket-item.js'
import type { Catalog } from './catalog.js'
import { type PartitionRecord, type PartitionState, partitionItemValue } from './partition-item.js'
import { writeNewBuckets } from './table-ddl.js'
import { bucketCountOf, type TableRecord } from './table-items.js'

/**
 * Partition DDL as single-item conditional writes. The partition item, keyed by name, reserves the
 * name; its move to READY is the commit point.
 *
 * Create partition:
 *   1. allocate the partition id
 *   2. partition item, state CREATING      (version absent, or the version of a DROPPED item
 *                                           of the same name whose cleanup is still pending)
 *   3. bucket items BUCKET#<pid>#<b>        (version absent)
 *   4. partition item -> READY              (version of step 2)           <- COMMIT POINT
 *   Repair: CREATING older than a grace period -> delete its buckets and the item.
 *
 * Drop partition:
 *   1. partition item -> DROPPED            (version read)                <- COMMIT POINT
 *   2. (coordinator) StopReplica(delete), then delete the bucket items and the partition item.
 *   Repair: DROPPED -> step 2 again.
 */

export interface CreatePartitionRequest {
  readonly table: TableRecord
  readonly spec: ResolvedPartitionSpec
  /** Replicas per bucket (first = preferred leader). */
  readonly assignment: readonly (readonly number[])[]
  readonly coordinatorEpoch: number
  readonly ignoreIfExists: boolean
  /** `max.partition.num` */
  readonly maxPartitionNum: number
  /** `max.bucket.num`: most buckets of the table over all its partitions. */
  readonly maxBucketNum: number
  readonly idAllocation?: AllocateIdOptions
}

export interface CreatedPartition {
  readonly partition: PartitionRecord
  readonly buckets: readonly BucketRecord[]
  /** A dropped partition of the same name whose item was reused; its buckets still need cleanup. */
  readonly replaced?: PartitionRecord
}

export async function createPartition(
  catalog: Catalog,
  req: CreatePartitionRequest,
): Promise<CreatedPartition | undefined> {
  const { table, spec } = req
  const name = nameOf(spec)
  const existing = await catalog.getPartition(table.tableId, name)
  if (existing !== undefined && existing.state !== 'DROPPED') return partitionExists(req)
  const live = await catalog.listPartitions(table.tableId, ['CREATING', 'READY'])
  checkLimits(req, live.length)
  const partitionId = await allocateId(catalog.store, COUNTERS.partitionId, req.idAllocation)
  const now = catalog.nowMs()
  const fields = {
    partitionId,
    spec,
    state: 'CREATING' as const,
    createdTimeMs: now,
    stateChangedTimeMs: now,
  }
  const { pk, sk } = partitionKey(table.tableId, name)
  let version: number
  try {
    version = await catalog.store.put(pk, sk, partitionItemValue(fields), {
      version: existing === undefined ? 'absent' : existing.version,
    })
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
    return partitionExists(req)
  }
  const buckets = await writeNewBuckets(
    catalog,
    table.tableId,
    partitionId,
    req.assignment,
    req.coordinatorEpoch,
  )
  const creating: PartitionRecord = { ...fields, tableId: table.tableId, partitionName: name, version }
  const partition = await setPartitionState(catalog, creating, 'READY')
  return existing === undefined ? { partition, buckets } : { partition, buckets, replaced: existing }
}

function checkLimits(req: CreatePartitionRequest, partitionCount: number): void {
  const path = tablePathToString(req.table.tablePath)
  if (partitionCount + 1 > req.maxPartitionNum) {
    throw new FlussError(
      'PARTITION_MAX_NUM_EXCEPTION',
      `Exceed the maximum number of partitions for table ${path}, only allow ${req.maxPartitionNum} partitions.`,
    )
  }
  const totalBuckets = bucketCountOf(req.table) * (partitionCount + 1)
  if (totalBuckets > req.maxBucketNum) {
    throw new FlussError(
      'BUCKET_MAX_NUM_EXCEPTION',
      `Adding partition '${nameOf(req.spec)}' would result in ${totalBuckets} total buckets for table ${path}, ` +
        `exceeding the maximum of ${req.maxBucketNum} buckets.`,
    )
  }
}

function partitionExists(req: CreatePartitionRequest): undefined {
  if (req.ignoreIfExists) return undefined
  throw new FlussError(
    'PARTITION_ALREADY_EXISTS',
    `Partition '${partitionQualifiedName(req.spec)}' already exists for table ${tablePathToString(req.table.tablePath)}`,
  )
}

/** Drops a READY partition; returns its DROPPED item, or undefined when absent and ignored. */
export async function dropPartition(
  catalog: Catalog,
  table: TableRecord,
  spec: ResolvedPartitionSpec,
  ignoreIfNotExists: boolean,
): Promise<PartitionRecord | undefined> {
  const existing = await catalog.getPartition(table.tableId, nameOf(spec))
  if (existing === undefined || existing.state !== 'READY') {
    if (ignoreIfNotExists) return undefined
    throw new FlussError(
      'PARTITION_NOT_EXISTS',
      `Partition '${partitionQualifiedName(spec)}' does not exist for table ${tablePathToString(table.tablePath)}`,
    )
  }
  return setPartitionState(catalog, existing, 'DROPPED')
}

/** Moves a partition item to another state, conditioned on the version it was read at. */
export async function setPartitionState(
  catalog: Catalog,
  partition: PartitionRecord,
  state: PartitionState,
): Promise<PartitionRecord> {
  const next: PartitionRecord = { ...partition, state, stateChangedTimeMs: catalog.nowMs() }
  const { pk, sk } = partitionKey(partition.tableId, partition.partitionName)
  const version = await catalog.store.put(pk, sk, partitionItemValue(next), { version: partition.version })
  return { ...next, version }
}
