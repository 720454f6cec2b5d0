import { type BucketRecord, type Catalog, mapBounded, type TableRecord } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import type { ConnectionPool } from '@sluice/core/rpc'
import type { Timer } from '@sluice/core/util'
import type { AssignmentOptions } from '../assignment/assignment.js'
import { ReplicaCleanup } from '../assignment/replica-cleanup.js'
import { ReplicaLeadership } from '../assignment/replica-leadership.js'
import { ReplicaNotifier } from '../assignment/replica-notifier.js'
import { PartitionDdlService } from '../ddl/partition-ddl-service.js'
import { type DdlSettings, TableDdlService } from '../ddl/table-ddl-service.js'
import { TabletServerMembership } from '../membership/membership.js'
import type { ServerProbe } from '../membership/server-probe.js'
import { OrphanRepair } from '../repair/orphan-repair.js'
import { CoordinatorContext } from './coordinator-context.js'
import type { CoordinatorLogger } from './coordinator-logger.js'

export interface CoordinatorControllerOptions {
  readonly catalog: Catalog
  readonly pool: Pick<ConnectionPool, 'request'>
  readonly timer: Timer
  readonly logger: CoordinatorLogger
  readonly settings: DdlSettings
  readonly internalListenerName: string
  readonly orphanGraceMs: number
  readonly concurrency: number
  readonly notify: {
    retryBackoffMs: number
    retryMaxBackoffMs: number
    maxBucketsPerRequest: number
    requestTimeoutMs: number
  }
  /** Called when a write was fenced by a newer coordinator. */
  readonly onFenced: (reason: string) => void
  readonly assignment?: AssignmentOptions
  /** Finds dead tablet servers before their leases run out (see TabletServerMembership). */
  readonly probe?: ServerProbe
}

/**
 * The state and work of the active coordinator: the in-memory cluster view, membership, replica
 * leadership, notifications, DDL, cleanup and repair. Every method that changes state is run by the
 * server on its serial executor, one at a time. Activation loads the view from the catalog;
 * deactivation drops it at once.
 */
export class CoordinatorController {
  readonly catalog: Catalog
  readonly context = new CoordinatorContext()
  readonly membership: TabletServerMembership
  readonly notifier: ReplicaNotifier
  readonly leadership: ReplicaLeadership
  readonly cleanup: ReplicaCleanup
  readonly tables: TableDdlService
  readonly partitions: PartitionDdlService
  readonly repair: OrphanRepair
  readonly #options: CoordinatorControllerOptions
  #epoch: number | undefined

  constructor(options: CoordinatorControllerOptions) {
    this.#options = options
    const { catalog, logger, concurrency } = options
    this.catalog = catalog
    this.membership = new TabletServerMembership(catalog, {
      ...(options.probe === undefined ? {} : { probe: options.probe }),
      concurrency,
    })
    this.notifier = new ReplicaNotifier({
      ...options.notify,
      pool: options.pool,
      timer: options.timer,
      logger,
      coordinatorEpoch: () => this.#epoch,
      endpoint: serverId => this.#endpoint(serverId),
    })
    const coordinatorEpoch = () => this.requireEpoch()
    const { context, membership, notifier } = this
    this.leadership = new ReplicaLeadership({
      catalog,
      context,
      membership,
      notifier,
      coordinatorEpoch,
      onFenced: options.onFenced,
      concurrency,
      logger,
    })
    this.cleanup = new ReplicaCleanup({
      catalog,
      membership,
      notifier,
      isActive: () => this.#epoch !== undefined,
      logger,
    })
    const ddl = {
      catalog,
      context,
      membership,
      notifier,
      leadership: this.leadership,
      cleanup: this.cleanup,
      settings: options.settings,
      coordinatorEpoch,
    }
    const withAssignment = options.assignment === undefined ? ddl : { ...ddl, assignment: options.assignment }
    this.tables = new TableDdlService(withAssignment)
    this.partitions = new PartitionDdlService(withAssignment)
    this.repair = new OrphanRepair({
      catalog,
      context,
      leadership: this.leadership,
      cleanup: this.cleanup,
      graceMs: options.orphanGraceMs,
      concurrency,
      logger,
    })
  }

  get coordinatorEpoch(): number | undefined {
    return this.#epoch
  }

  /** The active epoch; INVALID_COORDINATOR_EXCEPTION when this coordinator is not active. */
  requireEpoch(): number {
    if (this.#epoch === undefined) {
      throw new FlussError(
        'INVALID_COORDINATOR_EXCEPTION',
        'This coordinator server is not the current leader.',
      )
    }
    return this.#epoch
  }

  /** Takes over: loads the cluster view, fixes leadership of dead servers' buckets, tells every live server its buckets. */
  async activate(coordinatorEpoch: number): Promise<void> {
    this.deactivate()
    this.#epoch = coordinatorEpoch
    this.repair.reset()
    await this.membership.poll()
    await this.#loadContext()
    await this.leadership.reconcile()
    this.#options.logger.info('coordinator state loaded', {
      coordinatorEpoch,
      tables: this.context.tables().length,
      buckets: this.context.bucketCount,
      liveServers: this.membership.live().map(s => s.serverId),
    })
  }

  /** Stops acting at once: forgets the view and every pending notification. */
  deactivate(): void {
    this.#epoch = undefined
    this.context.clear()
    this.membership.reset()
    this.leadership.reset()
    this.notifier.clear()
  }

  /** CONTROLLED_SHUTDOWN: moves the server's leaderships away; returns the buckets it still leads. */
  async controlledShutdown(serverId: number): Promise<BucketRecord[]> {
    this.requireEpoch()
    return this.leadership.controlledShutdown(serverId)
  }

  async pollMembership(): Promise<void> {
    if (this.#epoch === undefined) return
    const change = await this.membership.poll()
    if (change.added.length === 0 && change.removed.length === 0) return
    await this.leadership.onMembershipChange(change)
    this.#options.logger.info('live tablet servers', {
      coordinatorEpoch: this.#epoch,
      liveServers: this.membership.live().map(s => s.serverId),
    })
  }

  async repairOrphans(): Promise<void> {
    if (this.#epoch !== undefined) await this.repair.run()
  }

  #endpoint(serverId: number): { host: string; port: number; role: 'tablet' } | undefined {
    const lease = this.membership.get(serverId)
    if (lease === undefined) return undefined
    const internal = lease.listeners.find(e => e.listenerName === this.#options.internalListenerName)
    return { host: internal?.host ?? lease.host, port: internal?.port ?? lease.port, role: 'tablet' }
  }

  async #loadContext(): Promise<void> {
    const { catalog, concurrency } = this.#options
    const paths: TablePath[] = []
    for (const db of await catalog.listDatabases()) {
      for (const tableName of await catalog.listTables(db.databaseName).catch(() => [])) {
        paths.push({ databaseName: db.databaseName, tableName })
      }
    }
    const tables = (await mapBounded(paths, concurrency, p => catalog.getTable(p))).filter(
      (t): t is TableRecord => t !== undefined,
    )
    for (const t of tables) this.context.putTable(t)
    await mapBounded(tables, concurrency, async t => {
      if (t.descriptor.isPartitioned)
        for (const p of await catalog.listPartitions(t.tableId)) this.context.putPartition(p)
      for (const b of await catalog.listAllBuckets(t.tableId)) {
        if (b.ref.partitionId === null || this.context.partition(b.ref.partitionId) !== undefined)
          this.context.putBucket(b)
      }
    })
  }
}
