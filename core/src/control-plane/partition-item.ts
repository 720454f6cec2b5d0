import type { ResolvedPartitionSpec } from '../metadata/index.js'
import type { ItemValue, VersionedItem } from '../metastore/index.js'
import { corruptItem, ITEM_FORMAT, ItemReader } from './item-reader.js'

/**
 *   TABLE#<id> / PARTITION#<name>   { format, partitionId, partitionKeys, partitionValues, state,
 *                                     createdTimeMs, stateChangedTimeMs }
 *
 * The item is keyed by the partition name (values joined by `$`), so its conditional creation is
 * what makes a name unique. CREATING: buckets are being written (invisible to readers); READY:
 * visible; DROPPED: invisible, replicas and bucket items await cleanup.
 */
export const PARTITION_STATES = ['CREATING', 'READY', 'DROPPED'] as const
export type PartitionState = (typeof PARTITION_STATES)[number]

export interface PartitionRecord {
  readonly tableId: number
  readonly partitionId: number
  readonly partitionName: string
  readonly spec: ResolvedPartitionSpec
  readonly state: PartitionState
  readonly createdTimeMs: number
  readonly stateChangedTimeMs: number
  readonly version: number
}

export type PartitionRecordFields = Omit<PartitionRecord, 'tableId' | 'partitionName' | 'version'>

export function partitionItemValue(p: PartitionRecordFields): ItemValue {
  return {
    format: ITEM_FORMAT,
    partitionId: p.partitionId,
    partitionKeys: [...p.spec.partitionKeys],
    partitionValues: [...p.spec.partitionValues],
    state: p.state,
    createdTimeMs: p.createdTimeMs,
    stateChangedTimeMs: p.stateChangedTimeMs,
  }
}

export function decodePartition(
  tableId: number,
  partitionName: string,
  item: VersionedItem,
): PartitionRecord {
  const r = new ItemReader(item)
  const partitionKeys = r.stringArray('partitionKeys')
  const partitionValues = r.stringArray('partitionValues')
  if (partitionKeys.length !== partitionValues.length || partitionKeys.length === 0) {
    throw corruptItem(item, `has ${partitionKeys.length} partition keys but ${partitionValues.length} values`)
  }
  return {
    tableId,
    partitionId: r.int('partitionId'),
    partitionName,
    spec: { partitionKeys, partitionValues },
    state: r.oneOf('state', PARTITION_STATES),
    createdTimeMs: r.int('createdTimeMs'),
    stateChangedTimeMs: r.int('stateChangedTimeMs'),
    version: item.version,
  }
}
