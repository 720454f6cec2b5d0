import { type ApiVersionsRequest, apiSpec, parseRequestFrame, RpcServer } from '@sluice/core/rpc'
import { FakeClusterState } from './fake-cluster-state.js'
import {
  coordinatorHandlers,
  type FakeStats,
  type FakeTabletHooks,
  readOnlyHandlers,
  tabletHandlers,
} from './fake-handlers.js'
import { type FakeKvHooks, type FakeKvRequestLog, kvHandlers } from './fake-kv-handlers.js'
import { TcpProxy } from './tcp-proxy.js'

export interface FakeClusterOptions {
  /** Tablet servers to start (ids 1..n); default 1. */
  readonly tabletServers?: number
  /** Server-side request timeout of every fake server. */
  readonly requestTimeoutMs?: number
}

interface FakeTabletServer {
  readonly id: number
  readonly server: RpcServer
  /** Clients reach the server through this relay (its port is the one in metadata). */
  readonly proxy: TcpProxy
}

/**
 * An in-process Fluss cluster for client tests, built from RpcServer: a coordinator (id 0) serving
 * DDL and metadata, and tablet servers serving produce, fetch, list-offsets and init-writer against
 * in-memory bucket logs, and put-kv, lookup, prefix-lookup and limit-scan against in-memory KV
 * stores whose changelogs go to the bucket logs (`FakeClusterState`). Every listener binds
 * 127.0.0.1 on a random port; tablet servers sit behind TcpProxy relays so tests can cut
 * connections. KV requests are recorded in `kvRequests`, the ApiVersions handshakes of tablet
 * connections in `handshakes`. Always `close()` it.
 */
export class FakeCluster {
  readonly state: FakeClusterState
  readonly stats: FakeStats = {
    produceRequests: 0,
    fetchRequests: 0,
    notLeaderAnswers: 0,
    metadataRequests: 0,
    schemaRequests: 0,
  }
  readonly hooks: FakeTabletHooks & FakeKvHooks = {}
  readonly kvRequests: FakeKvRequestLog = { putKv: [], lookups: [], limitScans: [] }
  /** The ApiVersions request that opened each client connection to a tablet server. */
  readonly handshakes: ApiVersionsRequest[] = []
  readonly #coordinator: RpcServer
  readonly #tablets: FakeTabletServer[] = []

  private constructor(state: FakeClusterState, coordinator: RpcServer) {
    this.state = state
    this.#coordinator = coordinator
  }

  static async start(options: FakeClusterOptions = {}): Promise<FakeCluster> {
    const ids = Array.from({ length: options.tabletServers ?? 1 }, (_, i) => i + 1)
    const state = new FakeClusterState(ids)
    const coordinator = new RpcServer({ role: 'coordinator', requestTimeoutMs: options.requestTimeoutMs })
    const cluster = new FakeCluster(state, coordinator)
    coordinator.registerAll({ ...readOnlyHandlers(state, cluster.stats), ...coordinatorHandlers(state) })
    const address = await coordinator.start()
    state.coordinator = { nodeId: 0, host: '127.0.0.1', port: address.port }
    try {
      for (const id of ids) {
        const server = new RpcServer({ role: 'tablet', requestTimeoutMs: options.requestTimeoutMs })
        // Hooks are read at call time, so tests can set them after start.
        const hooks: FakeTabletHooks & FakeKvHooks = {
          beforeProduce: (...args) => cluster.hooks.beforeProduce?.(...args),
          afterProduce: (...args) => cluster.hooks.afterProduce?.(...args),
          beforePutKv: (...args) => cluster.hooks.beforePutKv?.(...args),
          afterPutKv: (...args) => cluster.hooks.afterPutKv?.(...args),
          beforeLookup: (...args) => cluster.hooks.beforeLookup?.(...args),
          beforeLimitScan: (...args) => cluster.hooks.beforeLimitScan?.(...args),
        }
        server.registerAll({
          ...readOnlyHandlers(state, cluster.stats),
          ...tabletHandlers(state, id, cluster.stats, hooks),
          ...kvHandlers(state, id, cluster.stats, hooks, cluster.kvRequests),
        })
        const bound = await server.start()
        const proxy = await TcpProxy.start(bound.port, '127.0.0.1', {
          onFirstFrame: frame => cluster.#recordHandshake(frame),
        })
        cluster.#tablets.push({ id, server, proxy })
        state.tabletServers.push({ nodeId: id, host: '127.0.0.1', port: proxy.port })
      }
    } catch (e) {
      await cluster.close()
      throw e
    }
    return cluster
  }

  /** `host:port` of the coordinator, for `bootstrap.servers`. */
  get bootstrapServers(): string {
    return `127.0.0.1:${this.#coordinator.address.port}`
  }

  /** Cuts every client connection to a tablet server (it keeps accepting new ones). */
  dropConnections(serverId: number): void {
    this.#tablet(serverId).proxy.dropConnections()
  }

  /** Stops answering as a tablet server: its relay refuses connections from now on. */
  async stopTabletServer(serverId: number): Promise<void> {
    await this.#tablet(serverId).proxy.close()
  }

  async close(): Promise<void> {
    for (const t of this.#tablets) {
      await t.proxy.close()
      await t.server.close(0)
    }
    await this.#coordinator.close(0)
  }

  #recordHandshake(frame: Buffer): void {
    const request = parseRequestFrame(frame)
    const spec = apiSpec('API_VERSIONS')
    if (request.apiKey === spec.key)
      this.handshakes.push(spec.request.decode(request.body) as ApiVersionsRequest)
  }

  #tablet(serverId: number): FakeTabletServer {
    const tablet = this.#tablets.find(t => t.id === serverId)
    if (tablet === undefined) throw new Error(`no tablet server ${serverId}`)
    return tablet
  }
}

/** Waits until `condition` holds, checking every few milliseconds, for at most `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`)
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}
