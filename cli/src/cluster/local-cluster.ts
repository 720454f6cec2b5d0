import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  COORDINATOR_NODE_FLAGS,
  GATEWAY_NODE_FLAGS,
  LOCAL_PROCESS_ENV,
  TABLET_SERVER_NODE_FLAGS,
} from '@sluice/core/config'
import { type ExternalDynamo, type LocalAws, type LocalS3Mode, startLocalAws } from '@sluice/localstack'
import {
  type LocalClusterSecurity,
  saslClientConfig,
  securedGatewayConfig,
  securedListeners,
  securedServerConfig,
} from './local-security.js'
import { CoordinatorView, waitForReadiness } from './readiness.js'
import { ServerProcess } from './server-process.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const COORDINATOR_MAIN = join(ROOT, 'services', 'coordinator', 'dist', 'main.js')
const TABLET_MAIN = join(ROOT, 'services', 'tablet', 'dist', 'main.js')
const GATEWAY_MAIN = join(ROOT, 'functions', 'gateway', 'dist', 'main.js')
const COORDINATOR_READY = /coordinator (?:\S+) listening on ([\w.:-]+):(\d+)/
const TABLET_READY = /tablet-server (?:\S+) listening on ([\w.:-]+):(\d+)/
const GATEWAY_READY = /Sluice gateway listening on http:\/\/([\w.-]+|\[[\w:]+\]):(\d+)/

/** A DynamoDB running elsewhere (moto, LocalStack) holding the cluster's metadata table. */
export interface LocalClusterMetastore extends ExternalDynamo {
  /** The metadata table, created when missing (default `sluice-metadata`). */
  readonly tableName?: string
}

export interface LocalClusterOptions {
  /** Absolute directory holding everything: local AWS data, server data dirs, logs. */
  readonly dataDir: string
  readonly tabletServers?: number
  readonly coordinators?: number
  /** Port of the first coordinator (9123 for `npm start`; 0 = any free port, for tests). */
  readonly coordinatorPort?: number
  readonly s3?: LocalS3Mode
  /** Keep the metadata in this DynamoDB instead of in-process dynalite (blobs stay local). */
  readonly metastore?: LocalClusterMetastore
  /** Fluss/Sluice options for every server (FLUSS_CONF). */
  readonly serverConfig?: Readonly<Record<string, string>>
  /** Extra options per tablet server id. */
  readonly tabletConfig?: (id: number) => Readonly<Record<string, string>>
  readonly echo?: boolean
  readonly readyTimeoutMs?: number
  /** SASL on every listener and ACLs on (default: PLAINTEXT, no authorization). */
  readonly security?: LocalClusterSecurity
  /**
   * More listeners on every server (`NAME://127.0.0.1:0` each, after the usual ones), secured by
   * `security.protocol.map` in `serverConfig` (unnamed: PLAINTEXT).
   */
  readonly extraListeners?: readonly string[]
  /** Fixed ports of extra listeners on the first coordinator (clients bootstrap there); default any free port. */
  readonly extraListenerPorts?: Readonly<Record<string, number>>
  /** Every server serves Prometheus metrics on a free port (`ServerProcess.metricsUrl`). */
  readonly metrics?: boolean
}

/** The options that turn a server's Prometheus endpoint on, on any free loopback port. */
export const LOCAL_METRICS_CONFIG: Readonly<Record<string, string>> = {
  'metrics.reporters': 'prometheus',
  'metrics.reporter.prometheus.port': '0',
}

const DEFAULT_READY_TIMEOUT_MS = 60_000

/**
 * A whole Sluice cluster on this machine: in-process local AWS endpoints, then coordinators and
 * tablet servers as child processes running the compiled services (`npm run build` first). Used by
 * `npm start` and by the integration and fault tests, which kill, pause and restart servers.
 */
export class LocalCluster {
  readonly coordinators: ServerProcess[] = []
  readonly tablets = new Map<number, ServerProcess>()
  /** The HTTP gateway, once `startGateway` ran. */
  gateway: ServerProcess | undefined
  /** What each coordinator's log says of its state, by coordinator index. */
  readonly #views: CoordinatorView[] = []

  readonly #securityConfig: Record<string, string>

  private constructor(
    readonly options: LocalClusterOptions,
    readonly aws: LocalAws,
  ) {
    this.#securityConfig = options.security === undefined ? {} : securedServerConfig(options.security)
  }

  /** Client options for `user` of a secured cluster (SASL/PLAIN); empty for a PLAINTEXT cluster. */
  clientConfig(user?: string): Record<string, string> {
    const security = this.options.security
    if (security === undefined || user === undefined) return {}
    const password = security.users[user]
    if (password === undefined) throw new Error(`no user '${user}' in this cluster`)
    return saslClientConfig(user, password)
  }

  #listeners(port: number, firstCoordinator = false): string {
    const base = this.options.security === undefined ? `FLUSS://127.0.0.1:${port}` : securedListeners(port)
    const extra = (this.options.extraListeners ?? []).map(
      name => `,${name}://127.0.0.1:${firstCoordinator ? (this.options.extraListenerPorts?.[name] ?? 0) : 0}`,
    )
    return base + extra.join('')
  }

  /** `host:port` of the first coordinator's extra listener `name` (a fixed port of `extraListenerPorts`). */
  bootstrapServersOf(name: string): string {
    const port = this.options.extraListenerPorts?.[name]
    if (port === undefined) throw new Error(`listener '${name}' has no fixed port (extraListenerPorts)`)
    return `127.0.0.1:${port}`
  }

  static async start(options: LocalClusterOptions): Promise<LocalCluster> {
    const dataDir = resolve(options.dataDir)
    mkdirSync(dataDir, { recursive: true })
    // This process runs the local AWS endpoints through the AWS SDK too.
    for (const [key, value] of Object.entries(LOCAL_PROCESS_ENV)) process.env[key] ??= value
    const { metastore } = options
    const aws = await startLocalAws({
      dataDir: join(dataDir, 'aws'),
      s3: options.s3 ?? 'fs',
      ...(metastore === undefined ? {} : { dynamo: metastore, tableName: metastore.tableName }),
    })
    const cluster = new LocalCluster({ ...options, dataDir }, aws)
    try {
      // Tablet servers register in the metadata store by themselves: they start alongside the
      // coordinators (which start one after the other, so that the first becomes active).
      const coordinators = async () => {
        for (let i = 0; i < (options.coordinators ?? 1); i++) await cluster.startCoordinator(i)
      }
      const tablets = Array.from({ length: options.tabletServers ?? 3 }, (_, i) =>
        cluster.startTabletServer(i + 1),
      )
      await Promise.all([coordinators(), ...tablets])
      await cluster.waitUntilReady()
      return cluster
    } catch (e) {
      await cluster.stop()
      throw e
    }
  }

  /** `host:port` of every coordinator (the first is where `npm start` listens). */
  get bootstrapServers(): string {
    return this.coordinators
      .filter(c => c.running)
      .map(c => `${c.host}:${c.port}`)
      .join(',')
  }

  /** Every running server with its metrics URL (`name`, `url`), coordinators first. */
  get metricsEndpoints(): { readonly name: string; readonly url: string }[] {
    const all = [...this.coordinators, ...this.tablets.values(), ...(this.gateway ? [this.gateway] : [])]
    return all.flatMap(p => (p.running && p.metricsUrl ? [{ name: p.options.name, url: p.metricsUrl }] : []))
  }

  /** `http://host:port` of the running gateway, or undefined. */
  get gatewayUrl(): string | undefined {
    const g = this.gateway
    return g?.running ? `http://${g.host}:${g.port}` : undefined
  }

  get dataDir(): string {
    return this.options.dataDir
  }

  tablet(id: number): ServerProcess {
    const t = this.tablets.get(id)
    if (!t) throw new Error(`no tablet server ${id} in this cluster`)
    return t
  }

  private baseConfig(): Record<string, string> {
    // remote.data.dir is left to default to the blob store's URI: official clients download
    // remote log segments from where the servers uploaded them.
    return {
      ...this.aws.config,
      // The lake format of the cluster: tables with table.datalake.enabled become Iceberg tables.
      'datalake.format': 'iceberg',
      ...(this.options.metrics ? LOCAL_METRICS_CONFIG : {}),
      ...this.#securityConfig,
      ...this.options.serverConfig,
    }
  }

  private env(conf: Record<string, string>): Record<string, string | undefined> {
    return { ...process.env, ...LOCAL_PROCESS_ENV, ...this.aws.env, FLUSS_CONF: JSON.stringify(conf) }
  }

  /**
   * Waits (bounded) until a coordinator is active and sees every running tablet server live (its
   * membership has their leases and their listeners answer): from then on DDL can place replicas
   * on all of them. `start` returns only then.
   */
  async waitUntilReady(timeoutMs = this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    const running = () => [...this.tablets].filter(([, t]) => t.running).map(([id]) => id)
    const active = () => this.#views.find((v, i) => v?.active && this.coordinators[i]?.running)
    await waitForReadiness(
      () => active()?.sees(running()) === true,
      timeoutMs,
      () => {
        const view = active()
        if (view === undefined) return 'no coordinator is active yet'
        return `tablet servers [${running()}] running, the coordinator sees [${[...view.live].sort()}] live`
      },
    )
  }

  async startCoordinator(index: number): Promise<ServerProcess> {
    const first = this.options.coordinatorPort ?? 0
    const port = first === 0 ? 0 : first + index * 1000
    const conf = {
      ...this.baseConfig(),
      'bind.listeners': this.#listeners(port, index === 0),
    }
    const view = new CoordinatorView()
    const proc = new ServerProcess({
      name: `coordinator-${index}`,
      script: COORDINATOR_MAIN,
      nodeFlags: COORDINATOR_NODE_FLAGS,
      env: this.env(conf),
      ready: COORDINATOR_READY,
      readyTimeoutMs: this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      logFile: join(this.options.dataDir, 'logs', `coordinator-${index}.log`),
      echo: this.options.echo,
      onLine: line => view.accept(line),
    })
    this.#views[index] = view
    await proc.start()
    this.coordinators[index] = proc
    return proc
  }

  async startTabletServer(id: number): Promise<ServerProcess> {
    const existing = this.tablets.get(id)
    if (existing?.running) throw new Error(`tablet server ${id} is already running`)
    const conf = {
      ...this.baseConfig(),
      'bind.listeners': this.#listeners(0),
      'tablet-server.id': String(id),
      'data.dir': join(this.options.dataDir, `tablet-server-${id}`),
      ...this.options.tabletConfig?.(id),
    }
    const proc = new ServerProcess({
      name: `tablet-server-${id}`,
      script: TABLET_MAIN,
      nodeFlags: TABLET_SERVER_NODE_FLAGS,
      env: this.env(conf),
      ready: TABLET_READY,
      readyTimeoutMs: this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      logFile: join(this.options.dataDir, 'logs', `tablet-server-${id}.log`),
      echo: this.options.echo,
    })
    this.tablets.set(id, proc)
    await proc.start()
    return proc
  }

  /**
   * Starts the HTTP gateway (functions/gateway/dist/main.js) as a process of its own, on `listen`
   * (`host:port`, port 0 = any free port), connected to this cluster; `config` adds gateway and
   * client options. Its URL is then `gatewayUrl`.
   */
  async startGateway(listen: string, config: Readonly<Record<string, string>> = {}): Promise<ServerProcess> {
    if (this.gateway?.running) throw new Error('the gateway is already running')
    const conf = {
      ...this.aws.config,
      ...(this.options.metrics ? LOCAL_METRICS_CONFIG : {}),
      'bootstrap.servers': this.bootstrapServers,
      'gateway.rest.listen': listen,
      ...(this.options.security === undefined ? {} : securedGatewayConfig(this.options.security)),
      ...config,
    }
    const proc = new ServerProcess({
      name: 'gateway',
      script: GATEWAY_MAIN,
      nodeFlags: GATEWAY_NODE_FLAGS,
      env: this.env(conf),
      ready: GATEWAY_READY,
      readyTimeoutMs: this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      logFile: join(this.options.dataDir, 'logs', 'gateway.log'),
      echo: this.options.echo,
    })
    this.gateway = proc
    await proc.start()
    return proc
  }

  async stopTabletServer(id: number): Promise<void> {
    await this.tablet(id).stop()
  }

  async killTabletServer(id: number): Promise<void> {
    await this.tablet(id).kill()
  }

  async restartTabletServer(id: number): Promise<ServerProcess> {
    await this.tablet(id).stop()
    return this.startTabletServer(id)
  }

  async killCoordinator(index = 0): Promise<void> {
    await this.coordinators[index]?.kill()
  }

  async restartCoordinator(index = 0): Promise<ServerProcess> {
    await this.coordinators[index]?.stop()
    return this.startCoordinator(index)
  }

  /** Stops the gateway, tablet servers, then coordinators, then local AWS. */
  async stop(): Promise<void> {
    await this.gateway?.stop()
    await Promise.all([...this.tablets.values()].map(t => t.stop()))
    await Promise.all(this.coordinators.map(c => c.stop()))
    await this.aws.stop()
  }
}
