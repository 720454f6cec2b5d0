import {
  bucketCountOf,
  type Catalog,
  deletePartitionItems,
  deleteTableItems,
  inspectPartitions,
  inspectTable,
  mapBounded,
  nextTableId,
  setTableState,
  type TableRepair,
} from '@sluice/core/control-plane'
import type { ReplicaCleanup } from '../assignment/replica-cleanup.js'
import type { ReplicaLeadership } from '../assignment/replica-leadership.js'
import type { CoordinatorContext } from '../server/coordinator-context.js'
import type { CoordinatorLogger } from '../server/coordinator-logger.js'

export interface OrphanRepairDeps {
  readonly catalog: Catalog
  readonly context: CoordinatorContext
  readonly leadership: ReplicaLeadership
  readonly cleanup: ReplicaCleanup
  readonly graceMs: number
  readonly concurrency: number
  readonly logger: CoordinatorLogger
}

/**
 * Finds and repairs what interrupted DDL left behind (see the protocols in core/src/control-plane). Table
 * items cannot be listed without a pointer, so the repair visits table ids: all ids below the id
 * counter on its first run after activation, then only ids allocated since, plus creations it found
 * too young to judge. Partitions of the known partitioned tables are inspected on every run.
 */
export class OrphanRepair {
  readonly #deps: OrphanRepairDeps
  #scannedBelow = 0
  readonly #revisit = new Set<number>()

  constructor(deps: OrphanRepairDeps) {
    this.#deps = deps
  }

  /** Starts over (after activation: another coordinator may have left anything behind). */
  reset(): void {
    this.#scannedBelow = 0
    this.#revisit.clear()
  }

  async run(): Promise<void> {
    const next = await nextTableId(this.#deps.catalog)
    const ids = [...this.#revisit]
    for (let id = this.#scannedBelow; id < next; id++) if (!this.#revisit.has(id)) ids.push(id)
    this.#revisit.clear()
    await mapBounded(ids, this.#deps.concurrency, async id => {
      const repair = await inspectTable(this.#deps.catalog, id, this.#deps.graceMs)
      if (repair !== undefined) await this.#repairTable(repair)
    })
    this.#scannedBelow = Math.max(this.#scannedBelow, next)
    const partitioned = this.#deps.context.tables().filter(t => t.descriptor.isPartitioned)
    await mapBounded(partitioned, this.#deps.concurrency, t =>
      this.#repairPartitions(t.tableId, bucketCountOf(t)),
    )
  }

  async #repairTable(repair: TableRepair): Promise<void> {
    const { catalog, context, leadership, cleanup, logger } = this.#deps
    const { table } = repair
    logger.info('repairing an interrupted table operation', { tableId: table.tableId, action: repair.kind })
    switch (repair.kind) {
      case 'pending':
        this.#revisit.add(table.tableId)
        return
      case 'rollback-creation':
        return deleteTableItems(catalog.store, table.tableId)
      case 'finish-creation': {
        const ready = await setTableState(catalog, table, 'READY')
        context.putTable(ready)
        for (const bucket of await catalog.listBuckets(table.tableId, null)) {
          context.putBucket(bucket)
          leadership.notifyReplicas(bucket)
        }
        return
      }
      case 'cleanup': {
        const dropped = table.state === 'DROPPED' ? table : await setTableState(catalog, table, 'DROPPED')
        context.removeTable(table.tableId)
        // Looked at again on every run until the cleanup has removed the table item.
        this.#revisit.add(table.tableId)
        return cleanup.cleanupTable(dropped)
      }
    }
  }

  async #repairPartitions(tableId: number, bucketCount: number): Promise<void> {
    for (const repair of await inspectPartitions(this.#deps.catalog, tableId, this.#deps.graceMs)) {
      const { partition } = repair
      if (repair.kind === 'pending') continue
      this.#deps.logger.info('repairing an interrupted partition operation', {
        tableId,
        partition: partition.partitionName,
        action: repair.kind,
      })
      if (repair.kind === 'rollback-creation')
        await deletePartitionItems(this.#deps.catalog.store, partition, bucketCount)
      else this.#deps.cleanup.cleanupPartition(partition, bucketCount)
    }
  }
}
