import { COUNTERS, counterKey } from '../metastore/index.js'
import type { Catalog } from './catalog.js'
import { corruptItem } from './item-reader.js'
import type { PartitionRecord } from './partition-item.js'
import type { TableRecord } from './table-items.js'

/**
 * What a crash (or a lost race) can leave behind, and what repairs it (see the protocols in
 * table-ddl.ts and partition-ddl.ts):
 * - finish-creation: a table whose pointer was written but not yet marked READY -> mark READY.
 * - rollback-creation: a creation that never reached its commit point and is older than the grace
 *   period (so it is not still running) -> delete its items. Nothing was announced to tablet servers.
 * - cleanup: a dropped table or partition (or a READY table whose pointer is gone: a drop cut short)
 *   -> StopReplica(delete) to the replicas, then delete the items.
 * - pending: an uncommitted creation younger than the grace period -> look again later.
 */
export type RepairKind = 'finish-creation' | 'rollback-creation' | 'cleanup' | 'pending'

export interface TableRepair {
  readonly kind: RepairKind
  readonly table: TableRecord
}

export interface PartitionRepair {
  readonly kind: Exclude<RepairKind, 'finish-creation'>
  readonly partition: PartitionRecord
}

/** The table id the counter hands out next: every table item has a smaller id. */
export async function nextTableId(catalog: Catalog): Promise<number> {
  const { pk, sk } = counterKey(COUNTERS.tableId)
  const item = await catalog.store.get(pk, sk)
  if (item === undefined) return 0
  const next = item.value.next
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 0) {
    throw corruptItem(item, `holds ${JSON.stringify(item.value)}, expected {next: integer >= 0}`)
  }
  return next
}

/** The repair a table item needs, or undefined when it is absent or healthy. */
export async function inspectTable(
  catalog: Catalog,
  tableId: number,
  graceMs: number,
): Promise<TableRepair | undefined> {
  const table = await catalog.getTableById(tableId)
  if (table === undefined) return undefined
  if (table.state === 'DROPPED') return { kind: 'cleanup', table }
  const pointer = await catalog.getTablePointer(table.tablePath)
  const committed = pointer?.tableId === tableId
  if (table.state === 'READY') return committed ? undefined : { kind: 'cleanup', table }
  if (committed) return { kind: 'finish-creation', table }
  const old = catalog.nowMs() - table.stateChangedTimeMs > graceMs
  return { kind: old ? 'rollback-creation' : 'pending', table }
}

/** The repairs the partitions of a table need (none for healthy READY partitions). */
export async function inspectPartitions(
  catalog: Catalog,
  tableId: number,
  graceMs: number,
): Promise<PartitionRepair[]> {
  const partitions = await catalog.listPartitions(tableId, ['CREATING', 'DROPPED'])
  const now = catalog.nowMs()
  return partitions.map(partition => {
    if (partition.state === 'DROPPED') return { kind: 'cleanup', partition }
    const old = now - partition.stateChangedTimeMs > graceMs
    return { kind: old ? 'rollback-creation' : 'pending', partition }
  })
}
