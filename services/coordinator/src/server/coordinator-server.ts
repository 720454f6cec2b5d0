import { randomUUID } from 'node:crypto'
import {
  ADVERTISED_LISTENERS,
  AUTO_PARTITION_CHECK_INTERVAL,
  BIND_LISTENERS,
  CLIENT_CONNECT_TIMEOUT,
  CLIENT_REQUEST_TIMEOUT,
  type Configuration,
  INTERNAL_LISTENER_NAME,
  REMOTE_DATA_DIR,
  SLUICE_BLOBSTORE_URI,
  SLUICE_COORDINATOR_LEASE_DURATION,
  SLUICE_COORDINATOR_MAX_QUEUED_EVENTS,
} from '@sluice/core/config'
import {
  Catalog,
  type Endpoint,
  listenersToString,
  parseListeners,
  tableInfoOf,
} from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { MetricRegistry, RequestMetrics } from '@sluice/core/metrics'
import { ConnectionPool, RpcServer } from '@sluice/core/rpc'
import {
  AuthorizationGuard,
  type Authorizer,
  aclAdminHandlers,
  createAuthorizer,
  internalClientSecurity,
  listAclsHandler,
  serverListenerSecurity,
} from '@sluice/core/security'
import { type Clock, SerialExecutor, SYSTEM_CLOCK, SYSTEM_TIMER, type Timer } from '@sluice/core/util'
import type { AssignmentOptions } from '../assignment/assignment.js'
import { autoPartitionOps } from '../auto-partition/auto-partition-ops.js'
import { AutoPartitionManager } from '../auto-partition/index.js'
import { CoordinatorLeaderElection } from '../election/leader-election.js'
import { type ServerProbe, tcpProbe } from '../membership/server-probe.js'
import { advertisedFromBound } from './advertised-endpoints.js'
import { controllerSettings, loopIntervals, rpcServerOptions } from './coordinator-config.js'
import { CoordinatorController } from './coordinator-controller.js'
import { type CoordinatorLogger, SILENT_COORDINATOR_LOGGER } from './coordinator-logger.js'
import { coordinatorMetrics } from './coordinator-metrics.js'
import { coordinatorHandlers } from './coordinator-service.js'
import { PeriodicTask } from './periodic-task.js'

export interface CoordinatorServerDeps {
  readonly config: Configuration
  readonly metaStore: MetaStore
  readonly clock?: Clock
  readonly timer?: Timer
  readonly logger?: CoordinatorLogger
  /** Unique per process; default a random UUID. */
  readonly coordinatorId?: string
  /** Fixed replica placement for tests (default: random start and shift, as Fluss). */
  readonly assignment?: AssignmentOptions
  /**
   * How dead tablet servers are found before their leases run out: default a TCP connect to each
   * server's listener at every membership poll (a refused connection = dead); null: leases only.
   */
  readonly probe?: ServerProbe | null
  /** Where the coordinator records its metrics; none are recorded without it. */
  readonly metrics?: MetricRegistry
  /**
   * With `advertised.listeners` unset, the host advertised for listeners bound to a wildcard
   * address (the task's private address in ECS); without it such a listener is refused at start.
   */
  readonly wildcardAdvertisedHost?: string
}

/** `bind.listeners` when unset: Fluss's coordinator port on the loopback interface. */
export const DEFAULT_COORDINATOR_LISTENERS = 'FLUSS://127.0.0.1:9123'

/**
 * The CoordinatorServer: Fluss RPC listeners, the coordinator lease election, and while active the
 * controller's loops (membership polling, notification retries, orphan repair). Several may run;
 * exactly one is active. Standbys serve the read-only admin APIs and refuse DDL.
 */
export class CoordinatorServer {
  readonly id: string
  readonly catalog: Catalog
  readonly controller: CoordinatorController
  readonly election: CoordinatorLeaderElection
  /** Creates and drops time partitions while this coordinator is active. */
  readonly autoPartitions: AutoPartitionManager
  readonly #config: Configuration
  readonly #logger: CoordinatorLogger
  readonly #pool: ConnectionPool
  readonly #executor: SerialExecutor
  readonly #loops: { election: PeriodicTask; membership: PeriodicTask; repair: PeriodicTask }
  readonly #servers: RpcServer[] = []
  #bound: Endpoint[] = []
  readonly #wildcardAdvertisedHost: string | undefined
  #advertised: Endpoint[] = []
  #activation: Promise<void> = Promise.resolve()
  readonly #requestMetrics: RequestMetrics | undefined
  /** The process's one authorizer (undefined unless `authorizer.enabled`). */
  readonly authorizer: Authorizer | undefined

  constructor(deps: CoordinatorServerDeps) {
    const config = deps.config
    this.#config = config
    this.#wildcardAdvertisedHost = deps.wildcardAdvertisedHost
    this.id = deps.coordinatorId ?? randomUUID()
    const clock = deps.clock ?? SYSTEM_CLOCK
    const timer = deps.timer ?? SYSTEM_TIMER
    const logger = deps.logger ?? SILENT_COORDINATOR_LOGGER
    this.#logger = logger
    this.catalog = new Catalog(deps.metaStore, { nowMs: () => clock.nowMs() })
    this.authorizer = createAuthorizer(config, deps.metaStore, logger)
    this.#pool = new ConnectionPool({
      connectTimeoutMs: config.get(CLIENT_CONNECT_TIMEOUT),
      requestTimeoutMs: config.get(CLIENT_REQUEST_TIMEOUT),
      clientSoftwareName: 'sluice-coordinator',
      security: internalClientSecurity(config),
    })
    this.#executor = new SerialExecutor(config.get(SLUICE_COORDINATOR_MAX_QUEUED_EVENTS), 'the coordinator')
    this.election = new CoordinatorLeaderElection({
      catalog: this.catalog,
      clock,
      leaseDurationMs: config.get(SLUICE_COORDINATOR_LEASE_DURATION),
      logger,
      candidate: () => this.#candidate(),
      listener: {
        onActive: lease => this.#onActive(lease.coordinatorEpoch),
        onStandby: () => this.#onStandby(),
      },
    })
    this.controller = new CoordinatorController({
      ...controllerSettings(config),
      catalog: this.catalog,
      pool: this.#pool,
      timer,
      logger,
      onFenced: reason => this.election.stepDown(reason),
      ...(deps.assignment === undefined ? {} : { assignment: deps.assignment }),
      ...(deps.probe === null ? {} : { probe: deps.probe ?? tcpProbe(config.get(CLIENT_CONNECT_TIMEOUT)) }),
    })
    this.#requestMetrics =
      deps.metrics === undefined
        ? undefined
        : coordinatorMetrics(deps.metrics, {
            isActive: () => this.isActive,
            controller: this.controller,
            connections: () => this.#servers.reduce((n, s) => n + s.connectionCount, 0),
          })
    const ops = autoPartitionOps(this)
    this.autoPartitions = new AutoPartitionManager({
      tables: ops,
      partitions: ops,
      checkIntervalMs: config.get(AUTO_PARTITION_CHECK_INTERVAL),
      clock,
      timer,
      logger: {
        info: logger.info.bind(logger),
        warn: logger.warn.bind(logger),
        error: logger.warn.bind(logger),
      },
    })
    const intervals = loopIntervals(config)
    const loop = (name: string, intervalMs: number, run: () => Promise<void>) =>
      new PeriodicTask(name, intervalMs, run, timer, logger)
    this.#loops = {
      election: loop('coordinator lease', intervals.leaseRenewMs, () => this.election.tick()),
      membership: loop('membership poll', intervals.membershipPollMs, () =>
        this.#whenActive(() => this.controller.pollMembership()),
      ),
      repair: loop('orphan repair', intervals.orphanRepairMs, () =>
        this.#whenActive(() => this.controller.repairOrphans()),
      ),
    }
  }

  get isActive(): boolean {
    return this.election.isActive && this.controller.coordinatorEpoch !== undefined
  }

  get coordinatorEpoch(): number | undefined {
    return this.isActive ? this.controller.coordinatorEpoch : undefined
  }

  /** The advertised endpoints (available once started): what clients and servers are told. */
  get endpoints(): readonly Endpoint[] {
    return this.#advertised
  }

  /** The endpoints actually listened on (port 0 resolved). */
  get boundEndpoints(): readonly Endpoint[] {
    return this.#bound
  }

  /** Binds the listeners, then starts the election and the background loops. */
  async start(): Promise<void> {
    const bind = parseListeners(
      this.#config.getOptional(BIND_LISTENERS) ?? DEFAULT_COORDINATOR_LISTENERS,
      BIND_LISTENERS.key,
    )
    const remoteDataDir =
      this.#config.getOptional(REMOTE_DATA_DIR) ?? this.#config.getOptional(SLUICE_BLOBSTORE_URI)
    const handlers = coordinatorHandlers(
      this.catalog,
      this.controller,
      op => this.runDdl(op),
      { onTableChanged: path => this.#checkAutoPartitions(path) },
      remoteDataDir === undefined ? {} : { remoteDataDir },
    )
    const security = serverListenerSecurity(
      this.#config,
      bind.map(l => l.listenerName),
      this.#logger,
    )
    const authorizer = this.authorizer
    await authorizer?.start()
    const guard =
      authorizer === undefined ? undefined : new AuthorizationGuard(authorizer, id => this.#tablePath(id))
    const bound: Endpoint[] = []
    for (const listener of bind) {
      const observer = this.#requestMetrics
      const server = new RpcServer({
        ...rpcServerOptions(this.#config, listener, this.#logger, security.get(listener.listenerName)),
        ...(guard === undefined ? {} : { guard }),
        ...(observer === undefined ? {} : { observer }),
      })
        .registerAll(handlers)
        .registerAll(aclAdminHandlers(authorizer))
        .registerAll(listAclsHandler(authorizer))
      this.#servers.push(server)
      const address = await server.start()
      bound.push({ listenerName: listener.listenerName, host: listener.host, port: address.port })
    }
    this.#bound = bound
    const advertised = this.#config.getOptional(ADVERTISED_LISTENERS)
    this.#advertised =
      advertised === undefined
        ? advertisedFromBound(bound, this.#wildcardAdvertisedHost)
        : parseListeners(advertised, ADVERTISED_LISTENERS.key)
    this.#loops.election.start()
    this.#loops.membership.start()
    this.#loops.repair.start(loopIntervals(this.#config).orphanRepairMs)
  }

  /** Stops the loops, gives the lease up (a standby takes over at once), closes the listeners. */
  async stop(): Promise<void> {
    await Promise.all(Object.values(this.#loops).map(loop => loop.stop()))
    await this.election
      .release()
      .catch(e => this.#logger.warn('releasing the coordinator lease failed', { error: String(e) }))
    this.controller.deactivate()
    await this.autoPartitions.stop()
    await this.#executor.close()
    await Promise.all(this.#servers.map(s => s.close()))
    this.authorizer?.stop()
    await this.controller.cleanup.idle()
    await this.#pool.close()
  }

  /** One election step now (tests; the loop does it every lease-renew-interval). */
  async electionTick(): Promise<void> {
    await this.#loops.election.runNow()
    await this.#activation
  }

  /** One membership poll now. */
  pollMembership(): Promise<void> {
    return this.#loops.membership.runNow()
  }

  /** One orphan repair run now. */
  repairOrphans(): Promise<void> {
    return this.#loops.repair.runNow()
  }

  /** Waits until queued work, notifications in flight and cleanups are done. */
  async settle(): Promise<void> {
    await this.#activation
    await this.#executor.run(async () => undefined).catch(() => undefined)
    await this.controller.notifier.idle()
    await this.controller.cleanup.idle()
  }

  async #tablePath(tableId: number): Promise<TablePath> {
    const table = await this.catalog.getTableById(tableId)
    if (table === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `Table with id ${tableId} does not exist`)
    return table.tablePath
  }

  #candidate() {
    const internalName = this.#config.get(INTERNAL_LISTENER_NAME)
    const internal = this.#advertised.find(e => e.listenerName === internalName) ?? this.#advertised[0]
    return { coordinatorId: this.id, host: internal.host, port: internal.port, listeners: this.#advertised }
  }

  #onActive(coordinatorEpoch: number): void {
    this.#activation = this.#executor
      .run(() => this.controller.activate(coordinatorEpoch))
      .then(() => this.#executor.run(() => this.controller.repairOrphans()))
      .then(() => {
        if (this.isActive) this.autoPartitions.start()
      })
      .then(() =>
        this.#logger.info('coordinator activated', {
          coordinatorId: this.id,
          coordinatorEpoch,
          listeners: listenersToString(this.#advertised),
        }),
      )
      .catch(e => {
        this.#logger.warn('coordinator activation failed; giving the lease up', { error: String(e) })
        return this.election.release().catch(() => undefined)
      })
  }

  #onStandby(): void {
    this.controller.deactivate()
    this.autoPartitions
      .stop()
      .catch(e => this.#logger.warn('stopping auto partitioning failed', { error: String(e) }))
  }

  /** After CREATE TABLE or ALTER TABLE: an auto-partitioned table gets its partitions now. */
  async #checkAutoPartitions(path: TablePath): Promise<void> {
    try {
      const table = await this.catalog.getTable(path)
      if (table === undefined || !this.isActive) return
      const info = tableInfoOf(table)
      if (info.isAutoPartitioned) await this.autoPartitions.checkTable(info)
    } catch (e) {
      this.#logger.warn('auto partitioning after DDL failed', { error: String(e) })
    }
  }

  #whenActive(task: () => Promise<void>): Promise<void> {
    return this.isActive ? this.#executor.run(task) : Promise.resolve()
  }

  /**
   * Runs a state-changing operation on the coordinator's serial executor, only while this
   * coordinator is active (INVALID_COORDINATOR_EXCEPTION otherwise). DDL requests go through it.
   */
  runDdl<T>(operation: () => Promise<T>): Promise<T> {
    const notLeader = () =>
      new FlussError('INVALID_COORDINATOR_EXCEPTION', 'This coordinator server is not the current leader.')
    if (!this.isActive) return Promise.reject(notLeader())
    return this.#executor.run(async () => {
      if (!this.isActive) throw notLeader()
      return operation()
    })
  }
}
