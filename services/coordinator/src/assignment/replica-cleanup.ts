import {
  type BucketRecord,
  type Catalog,
  deletePartitionItems,
  deleteTableItems,
  type PartitionRecord,
  type TableRecord,
} from '@sluice/core/control-plane'
import type { TabletServerMembership } from '../membership/membership.js'
import { type CoordinatorLogger, errorMessage } from '../server/coordinator-logger.js'
import type { ReplicaNotifier, StopReplicaNotice } from './replica-notifier.js'

export interface ReplicaCleanupDeps {
  readonly catalog: Catalog
  readonly membership: TabletServerMembership
  readonly notifier: ReplicaNotifier
  readonly isActive: () => boolean
  readonly logger: CoordinatorLogger
}

/**
 * The last steps of a drop: StopReplica(delete) to every live replica, then deletion of the items.
 * Runs in the background; stops early when this coordinator is no longer active (the DROPPED items
 * stay, and the next active coordinator's repair finishes the job). Replicas on servers that are
 * down when the drop happens are not reached: a tablet server deletes local replicas of buckets the
 * catalog no longer has when it starts.
 */
export class ReplicaCleanup {
  readonly #deps: ReplicaCleanupDeps
  readonly #running = new Map<string, Promise<void>>()

  constructor(deps: ReplicaCleanupDeps) {
    this.#deps = deps
  }

  get running(): number {
    return this.#running.size
  }

  /** Cleans up a DROPPED table (or one whose pointer is gone); at most one job per table. */
  cleanupTable(table: TableRecord): void {
    this.#start(`table ${table.tableId}`, async () => {
      const buckets = await this.#deps.catalog.listAllBuckets(table.tableId)
      if (!(await this.#stopReplicas(buckets))) return
      await deleteTableItems(this.#deps.catalog.store, table.tableId)
    })
  }

  /** Cleans up a DROPPED partition (or the buckets of one whose name was reused). */
  cleanupPartition(partition: PartitionRecord, bucketCount: number): void {
    this.#start(`partition ${partition.partitionId}`, async () => {
      const buckets = await this.#deps.catalog.listBuckets(partition.tableId, partition.partitionId)
      if (!(await this.#stopReplicas(buckets))) return
      await deletePartitionItems(this.#deps.catalog.store, partition, bucketCount)
    })
  }

  /** Waits for every running job. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()])
  }

  #start(name: string, job: () => Promise<void>): void {
    if (this.#running.has(name)) return
    const run = job()
      .then(() => this.#deps.logger.info('dropped items cleaned up', { what: name }))
      .catch(e =>
        this.#deps.logger.warn('cleanup failed; the repair will retry it', {
          what: name,
          error: errorMessage(e),
        }),
      )
      .finally(() => this.#running.delete(name))
    this.#running.set(name, run)
  }

  /** Sends StopReplica(delete) to the live replicas; false when this coordinator stopped being active. */
  async #stopReplicas(buckets: readonly BucketRecord[]): Promise<boolean> {
    const byServer = new Map<number, StopReplicaNotice[]>()
    const live = this.#deps.membership.liveIds()
    for (const b of buckets) {
      for (const serverId of b.leaderAndIsr.replicas) {
        if (!live.has(serverId)) continue
        const notices = byServer.get(serverId) ?? []
        byServer.set(serverId, notices)
        notices.push({ ref: b.ref, leaderEpoch: b.leaderAndIsr.leaderEpoch, delete: true })
      }
    }
    await Promise.all(
      [...byServer].map(([serverId, notices]) => this.#deps.notifier.stopReplicas(serverId, notices)),
    )
    return this.#deps.isActive()
  }
}
