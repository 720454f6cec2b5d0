import { randomUUID } from 'node:crypto'
import type { BlobStore } from '@sluice/core/blobstore'
import {
  ADVERTISED_LISTENERS,
  AUTHORIZER_ENABLED,
  BIND_LISTENERS,
  CLIENT_REQUEST_TIMEOUT,
  type Configuration,
  DATA_DIR,
  INTERNAL_LISTENER_NAME,
  LOG_RETENTION_CHECK_INTERVAL,
  NETTY_CONNECTION_MAX_IDLE_TIME,
  NETTY_SERVER_MAX_REQUEST_SIZE,
  REMOTE_DATA_DIR,
  REMOTE_LOG_TASK_INTERVAL_DURATION,
  REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS,
  SLUICE_BLOBSTORE_URI,
  SLUICE_RPC_SERVER_MAX_CONNECTIONS,
  SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_SERVER_REQUEST_TIMEOUT,
  SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT,
  SLUICE_SECURITY_SSL_RELOAD_INTERVAL,
  SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL,
  SLUICE_TABLET_SERVER_LEASE_DURATION,
  SLUICE_TABLET_SERVER_LEASE_REGISTER_TIMEOUT,
  TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES,
  TABLET_SERVER_CONTROLLED_SHUTDOWN_RETRY_INTERVAL,
  TABLET_SERVER_ID,
  TABLET_SERVER_RACK,
} from '@sluice/core/config'
import { parseListeners } from '@sluice/core/control-plane'
import { assert, FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { MetricRegistry } from '@sluice/core/metrics'
import { ConnectionPool, type Handlers, type RpcLogger, RpcServer, SILENT_LOGGER } from '@sluice/core/rpc'
import {
  AuthorizationGuard,
  type Authorizer,
  createAuthorizer,
  internalClientSecurity,
  listAclsHandler,
  serverListenerSecurity,
} from '@sluice/core/security'
import { type Clock, SYSTEM_CLOCK } from '@sluice/core/util'
import type { ControlPlane, ServerEndpoint } from '../control-plane/control-plane.js'
import { type KeyRouter, KvManager } from '../kv/index.js'
import { RemoteLogManager } from '../remote/index.js'
import type { ReplicaHooks } from '../replica/replica-hooks.js'
import { ReplicaManager } from '../replica/replica-manager.js'
import { TabletMetadataCache } from '../replica/tablet-metadata-cache.js'
import { type ControlledShutdownSettings, controlledShutdown } from './controlled-shutdown.js'
import { createFetcherManager } from './fetcher-wiring.js'
import { LakeOffsetsCache } from './lake-offsets-cache.js'
import { LocalRetention } from './local-retention.js'
import { TabletServerMetrics } from './metrics/index.js'
import { RemoteLogWiring } from './remote-log-wiring.js'
import { serverReplicaHooks } from './server-hooks.js'
import { ServerLeaseKeeper } from './server-lease.js'
import { TabletService } from './tablet-service.js'

export interface TabletServerDeps {
  readonly config: Configuration
  readonly controlPlane: ControlPlane
  readonly clock?: Clock
  /**
   * The read-only admin APIs every server answers (GET_METADATA, GET_TABLE_INFO, LIST_*, ...),
   * shared with the coordinator. APIs the TabletService implements itself are ignored here.
   */
  readonly adminHandlers?: Partial<Handlers>
  /**
   * Warnings; also informational lines of background components (KV recovery, snapshots) when it has
   * `info`; with `child` (core's Logger) each component logs under its own name and `log.level`.
   */
  readonly logger?: RpcLogger & {
    info?(message: string, fields?: Record<string, unknown>): void
    child?(bindings: {
      readonly component?: string
    }): RpcLogger & { info?(m: string, f?: Record<string, unknown>): void }
  }
  /** Extra plug-ins to every replica's leadership (after the server's remote log). */
  readonly replicaHooks?: ReplicaHooks
  /**
   * Remote storage (`sluice.blobstore.uri`) and the metadata store behind the control plane: with both,
   * sealed log segments are uploaded (remote log) and KV snapshots taken; without, buckets keep
   * everything local and KV tablets recover from the log alone.
   */
  readonly blobStore?: BlobStore
  readonly metaStore?: MetaStore
  /** Where the server records its metrics; none are recorded without it. */
  readonly metrics?: MetricRegistry
  /**
   * The key router the keys of PUT_KV, LOOKUP and PREFIX_LOOKUP are checked with (default: the
   * table's, so every key is checked). Not a setting: benchmarks measure the check's cost against a
   * server given one that answers undefined (keys not checked).
   */
  readonly keyRouterOf?: (table: TableInfo) => KeyRouter | undefined
}

/**
 * `remote.data.dir` as clients reach it: the option, else the blob store's own URI (both must name
 * the same place, since official clients compute remote object paths under it).
 */
export function remoteDataDirOf(config: Configuration): string | undefined {
  return config.getOptional(REMOTE_DATA_DIR) ?? config.getOptional(SLUICE_BLOBSTORE_URI)
}

/**
 * A tablet server (Fluss's `TabletServer`): RPC listeners on `bind.listeners` serving the
 * TabletService, the ReplicaManager with the bucket replicas under `data.dir`, and the membership
 * lease kept alive in the metadata store.
 */
export class TabletServer {
  readonly serverId: number
  readonly replicaManager: ReplicaManager
  /** The KvTablets of the primary-key buckets led here. */
  readonly kvManager: KvManager
  /** Null without remote storage. */
  readonly remoteLogManager: RemoteLogManager | null
  /** Retention by `table.log.ttl` of the logs no remote-log task looks after. */
  readonly localRetention: LocalRetention
  /** The server's metrics, when it has a registry. */
  readonly metrics: TabletServerMetrics | undefined
  /** The process's one authorizer (undefined unless `authorizer.enabled`). */
  readonly authorizer: Authorizer | undefined
  readonly #deps: TabletServerDeps
  readonly #pool: ConnectionPool
  readonly #servers: RpcServer[] = []
  #lease: ServerLeaseKeeper | undefined
  #endpoints: ServerEndpoint[] = []
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new'

  constructor(deps: TabletServerDeps) {
    this.#deps = deps
    const { config } = deps
    this.serverId = config.get(TABLET_SERVER_ID)
    this.authorizer =
      deps.metaStore === undefined
        ? undefined
        : createAuthorizer(config, deps.metaStore, this.#componentLogger('authorizer'))
    if (config.get(AUTHORIZER_ENABLED) && deps.metaStore === undefined)
      throw new FlussError('INVALID_CONFIG_EXCEPTION', "'authorizer.enabled' needs the metadata store")
    this.#pool = new ConnectionPool({
      clientSoftwareName: `sluice-tablet-server-${this.serverId}`,
      security: internalClientSecurity(config),
    })
    const metadataCache = new TabletMetadataCache()
    this.remoteLogManager = this.#createRemoteLogManager()
    const remote = this.#remoteLogWiring()
    this.kvManager = new KvManager({
      config,
      ...(deps.blobStore === undefined ? {} : { blobStore: deps.blobStore }),
      ...(deps.metaStore === undefined ? {} : { metaStore: deps.metaStore }),
      remoteChangelog: bucket => remote?.reader(bucket) ?? null,
      logger: this.#componentLogger('kv-snapshot'),
      ...(deps.keyRouterOf === undefined ? {} : { keyRouterOf: deps.keyRouterOf }),
    })
    const hooks = serverReplicaHooks(remote, deps.replicaHooks, (_, outcome) =>
      this.metrics?.isrUpdated(outcome),
    )
    this.replicaManager = new ReplicaManager({
      serverId: this.serverId,
      dataDir: config.get(DATA_DIR),
      config,
      controlPlane: deps.controlPlane,
      clock: deps.clock ?? SYSTEM_CLOCK,
      metadataCache,
      hooks,
      kvManager: this.kvManager,
      remoteLogReader: bucket => remote?.reader(bucket) ?? null,
      warn: (message, error, fields) => this.#warn(message, error, 'replica', fields),
      createFetcherManager: manager =>
        createFetcherManager(manager, {
          config,
          pool: this.#pool,
          internalListenerName: config.get(INTERNAL_LISTENER_NAME),
          warn: (message, error, fields) => this.#warn(message, error, 'replica', fields),
        }),
    })
    this.localRetention = new LocalRetention({
      replicas: () => this.replicaManager.replicas(),
      managedRemotely: bucket => this.remoteLogManager?.has(bucket) ?? false,
      checkIntervalMs: config.get(LOG_RETENTION_CHECK_INTERVAL),
      clock: deps.clock ?? SYSTEM_CLOCK,
      warn: (message, error) => this.#warn(message, error),
    })
    this.metrics =
      deps.metrics === undefined
        ? undefined
        : new TabletServerMetrics(deps.metrics, {
            replicaManager: this.replicaManager,
            kvManager: this.kvManager,
            remoteLogManager: this.remoteLogManager,
            connections: () => this.#servers.reduce((n, s) => n + s.connectionCount, 0),
          })
  }

  /** The advertised endpoints (bound ports when `bind.listeners` asked for port 0). */
  get endpoints(): readonly ServerEndpoint[] {
    return this.#endpoints
  }

  /** True while the membership lease is lost: writes are refused. */
  get writesFenced(): boolean {
    return this.#lease?.fenced ?? false
  }

  /** Starts the listeners, then registers the membership lease with the bound endpoints. */
  async start(): Promise<void> {
    assert(this.#state === 'new', `tablet server ${this.serverId} was already started`)
    this.#state = 'running'
    const { config } = this.#deps
    try {
      const bound = await this.#startListeners()
      const advertised = config.getOptional(ADVERTISED_LISTENERS)
      this.#endpoints =
        advertised === undefined ? bound : parseListeners(advertised, ADVERTISED_LISTENERS.key)
      const rack = config.getOptional(TABLET_SERVER_RACK)
      this.#lease = new ServerLeaseKeeper(
        this.#deps.controlPlane,
        {
          serverId: this.serverId,
          endpoints: this.#endpoints,
          incarnationId: randomUUID(),
          ...(rack === undefined ? {} : { rack }),
        },
        {
          leaseDurationMs: config.get(SLUICE_TABLET_SERVER_LEASE_DURATION),
          heartbeatIntervalMs: config.get(SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL),
          registerTimeoutMs: config.get(SLUICE_TABLET_SERVER_LEASE_REGISTER_TIMEOUT),
        },
        this.#deps.clock ?? SYSTEM_CLOCK,
        (message, error) => this.#warn(message, error),
      )
      await this.#lease.acquire()
      this.replicaManager.startup()
      this.localRetention.start()
    } catch (e) {
      await this.stop().catch(() => undefined)
      throw e
    }
  }

  /**
   * Graceful stop (SIGTERM): first a controlled shutdown (the active coordinator moves this
   * server's leaderships away while it still serves), then stop accepting and finish requests in
   * flight (waiting fetches and acks=all writes are answered now), stop replication, close every
   * log (fsync, high-watermark checkpoints), then release the lease.
   */
  async stop(): Promise<void> {
    if (this.#state === 'stopping' || this.#state === 'stopped') return
    const wasRunning = this.#state === 'running' && this.#lease !== undefined
    this.#state = 'stopping'
    if (wasRunning) await this.#controlledShutdown()
    const shutdownTimeoutMs = this.#deps.config.get(SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT)
    const closing = Promise.all(this.#servers.map(s => s.close(shutdownTimeoutMs)))
    this.replicaManager.delayedFetches.completeAll()
    this.replicaManager.delayedWrites.completeAll()
    await closing
    this.authorizer?.stop()
    const errors: unknown[] = []
    await this.localRetention.close().catch(e => errors.push(e))
    await this.replicaManager.shutdown().catch(e => errors.push(e))
    await this.kvManager.close().catch(e => errors.push(e))
    await this.remoteLogManager?.close().catch(e => errors.push(e))
    await this.#lease?.release().catch(e => errors.push(e))
    await this.#pool.close()
    this.#state = 'stopped'
    if (errors.length > 0) throw errors[0]
  }

  /** Moves leaderships away before stopping; gives up (and stops anyway) after the configured attempts. */
  async #controlledShutdown(): Promise<void> {
    const { config } = this.#deps
    const settings: ControlledShutdownSettings = {
      maxRetries: config.get(TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES),
      retryIntervalMs: config.get(TABLET_SERVER_CONTROLLED_SHUTDOWN_RETRY_INTERVAL),
      requestTimeoutMs: config.get(CLIENT_REQUEST_TIMEOUT),
    }
    const done = await controlledShutdown(
      { serverId: this.serverId, controlPlane: this.#deps.controlPlane, pool: this.#pool },
      settings,
      (message, error) => this.#warn(message, error),
    )
    if (!done) this.#warn(`tablet server ${this.serverId} stops without a completed controlled shutdown`)
  }

  async #startListeners(): Promise<ServerEndpoint[]> {
    const { config } = this.#deps
    const listeners = parseListeners(config.get(BIND_LISTENERS), BIND_LISTENERS.key)
    const service = new TabletService({
      replicaManager: this.replicaManager,
      controlPlane: this.#deps.controlPlane,
      config,
      writesFenced: () => this.writesFenced,
      ...(this.metrics === undefined ? {} : { metrics: this.metrics.tables }),
      forwarding: {
        pool: this.#pool,
        internalListenerName: config.get(INTERNAL_LISTENER_NAME),
        requestTimeoutMs: config.get(CLIENT_REQUEST_TIMEOUT),
      },
    })
    const own = service.handlers()
    const admin = Object.fromEntries(
      Object.entries(this.#deps.adminHandlers ?? {}).filter(([name]) => !(name in own)),
    ) as Partial<Handlers>
    const security = serverListenerSecurity(
      config,
      listeners.map(l => l.listenerName),
      this.#componentLogger('security'),
    )
    const authorizer = this.authorizer
    await authorizer?.start()
    const guard =
      authorizer === undefined
        ? undefined
        : new AuthorizationGuard(authorizer, id =>
            this.#deps.controlPlane.getTableInfo(id).then(t => t.tablePath),
          )
    const bound: ServerEndpoint[] = []
    for (const l of listeners) {
      const server = new RpcServer({
        security: security.get(l.listenerName),
        ...(guard === undefined ? {} : { guard }),
        tlsReloadIntervalMs: config.get(SLUICE_SECURITY_SSL_RELOAD_INTERVAL),
        role: 'tablet',
        host: l.host,
        port: l.port,
        listenerName: l.listenerName,
        maxRequestBytes: config.get(NETTY_SERVER_MAX_REQUEST_SIZE),
        idleTimeoutMs: config.get(NETTY_CONNECTION_MAX_IDLE_TIME),
        maxInFlightPerConnection: config.get(SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS),
        requestTimeoutMs: config.get(SLUICE_RPC_SERVER_REQUEST_TIMEOUT),
        maxConnections: config.get(SLUICE_RPC_SERVER_MAX_CONNECTIONS),
        shutdownTimeoutMs: config.get(SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT),
        logger: this.#deps.logger?.child?.({ component: 'rpc' }) ?? this.#deps.logger ?? SILENT_LOGGER,
        ...(this.metrics === undefined ? {} : { observer: this.metrics.requests }),
      })
      server
        .registerAll(admin)
        .registerAll(own as Partial<Handlers>)
        .registerAll(listAclsHandler(authorizer))
      this.#servers.push(server)
      const address = await server.start()
      bound.push({ listenerName: l.listenerName, host: l.host, port: address.port })
    }
    return bound
  }

  #createRemoteLogManager(): RemoteLogManager | null {
    const { config, blobStore, metaStore } = this.#deps
    const remoteDataDir = remoteDataDirOf(config)
    if (blobStore === undefined || metaStore === undefined || remoteDataDir === undefined) return null
    return new RemoteLogManager({
      blobStore,
      metaStore,
      remoteDataDir,
      taskIntervalMs: config.get(REMOTE_LOG_TASK_INTERVAL_DURATION),
      maxUploadSegments: config.get(REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS),
      ...(this.#deps.clock === undefined ? {} : { clock: this.#deps.clock }),
      logger: this.#componentLogger('remote-log'),
    })
  }

  #remoteLogWiring(): RemoteLogWiring | null {
    const manager = this.remoteLogManager
    const { metaStore, config } = this.#deps
    if (manager === null || !manager.enabled || metaStore === undefined) return null
    const clock = this.#deps.clock ?? SYSTEM_CLOCK
    const warn = (message: string, error?: unknown) => this.#warn(message, error)
    const refreshMs = config.get(REMOTE_LOG_TASK_INTERVAL_DURATION)
    return new RemoteLogWiring({
      manager,
      lakeOffsets: new LakeOffsetsCache(metaStore, refreshMs, () => clock.nowMs(), warn),
      kvSnapshotOffset: bucket => this.kvManager.snapshotOffset(bucket),
      warn,
    })
  }

  /** Background components (KV recovery and snapshots, remote log) report through the server's logger. */
  #componentLogger(component: string) {
    const logger = this.#deps.logger?.child?.({ component }) ?? this.#deps.logger
    return {
      info: (message: string, fields?: Record<string, unknown>) => logger?.info?.(message, fields),
      warn: (message: string, fields?: Record<string, unknown>) =>
        (logger ?? SILENT_LOGGER).warn(message, fields),
    }
  }

  #warn(
    message: string,
    error?: unknown,
    component?: string,
    fields?: Readonly<Record<string, unknown>>,
  ): void {
    const own = component === undefined ? undefined : this.#deps.logger?.child?.({ component })
    const logger = own ?? this.#deps.logger ?? SILENT_LOGGER
    const all = { ...fields, ...(error === undefined ? {} : { error: String(error) }) }
    logger.warn(message, Object.keys(all).length === 0 ? undefined : all)
  }
}
