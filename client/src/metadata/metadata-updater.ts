import { FlussError, toFlussError } from '@sluice/core/errors'
import { type PhysicalTablePath, type TablePath, tablePathToString } from '@sluice/core/metadata'
import {
  ApiKeys,
  type ApiName,
  type ApiRequestInit,
  type ApiResponse,
  type ClientConnection,
  type ConnectionPool,
  type MetadataResponse,
  type ServerEndpoint,
} from '@sluice/core/rpc'
import { exponentialBackoffMs, sleep } from '@sluice/core/util'
import type { ServerAddress } from '../client-options.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import { Cluster, type ServerNode } from './cluster.js'

/** What a metadata refresh asks about; nothing named = only the servers. */
export interface MetadataQuery {
  readonly tables?: readonly TablePath[]
  readonly partitions?: readonly PhysicalTablePath[]
  /** Ids of partitions of the tables named in `tables`. */
  readonly partitionIds?: readonly number[]
}

/** Where to bootstrap from, and how long retry loops may take. */
export interface MetadataUpdaterOptions {
  readonly bootstrapServers: readonly ServerAddress[]
  /** Bounds every retry loop here (bootstrap, refresh, finding the coordinator). */
  readonly requestTimeoutMs: number
}

/**
 * Keeps the client's view of the cluster (Fluss's `MetadataUpdater`). Bootstraps by asking each
 * bootstrap server in turn for metadata with no tables; later refreshes go to a random tablet server
 * and name the tables or partitions involved. Concurrent identical refreshes share one request. An
 * answer without tablet servers means the cluster is not ready: it is retried with backoff until the
 * request timeout.
 */
export class MetadataUpdater {
  /** The bound of every retry loop (`client.request-timeout`). */
  get requestTimeoutMs(): number {
    return this.#options.requestTimeoutMs
  }

  readonly #pool: ConnectionPool
  readonly #options: MetadataUpdaterOptions
  readonly #inFlight = new Map<string, Promise<Cluster>>()
  readonly #minSchemaIds = new Map<string, number>()
  #cluster = Cluster.EMPTY

  constructor(pool: ConnectionPool, options: MetadataUpdaterOptions) {
    this.#pool = pool
    this.#options = options
  }

  get cluster(): Cluster {
    return this.#cluster
  }

  /** Learns the servers from the bootstrap list; fails when none answers within the request timeout. */
  async initialize(): Promise<Cluster> {
    return this.update({})
  }

  /** Refreshes the metadata of what `query` names (and the server list); returns the new snapshot. */
  update(query: MetadataQuery): Promise<Cluster> {
    const key = queryKey(query)
    let running = this.#inFlight.get(key)
    if (running === undefined) {
      running = this.#updateWithRetry(query).finally(() => this.#inFlight.delete(key))
      this.#inFlight.set(key, running)
    }
    return running
  }

  /** Forgets the bucket locations of a table or partition; the next use refreshes them. */
  invalidate(tableId: number, partitionId?: number): void {
    this.#cluster = this.#cluster.withoutBuckets(tableId, partitionId)
  }

  /**
   * The lowest schema id a table's info may have on this connection: set after this connection
   * altered the table's columns, so that servers that have not learned the change yet are not
   * believed (read-your-writes for `getTable` after `alterTable`).
   */
  minSchemaId(path: TablePath): number {
    return this.#minSchemaIds.get(tablePathToString(path)) ?? 0
  }

  noteSchemaId(path: TablePath, schemaId: number): void {
    const key = tablePathToString(path)
    this.#minSchemaIds.set(key, Math.max(schemaId, this.#minSchemaIds.get(key) ?? 0))
  }

  /** Forgets a table entirely (after it was dropped). */
  forgetTable(path: TablePath): void {
    this.#cluster = this.#cluster.withoutTable(path)
  }

  /** The pooled connection to a server named in metadata. */
  connection(node: ServerNode): Promise<ClientConnection> {
    return this.#pool.get(endpointOf(node))
  }

  /** Sends one request to a server named in metadata. */
  async request<K extends ApiName>(
    node: ServerNode,
    api: K,
    request: ApiRequestInit<K>,
  ): Promise<ApiResponse<K>> {
    const connection = await this.connection(node)
    return connection.request(api, request)
  }

  /**
   * Sends a request to a random tablet server, trying the others (then the coordinator, for APIs it
   * serves) when one cannot be reached. Only for requests that are safe to repeat.
   */
  async requestAnyServer<K extends ApiName>(api: K, request: ApiRequestInit<K>): Promise<ApiResponse<K>> {
    const tabletOnly = ApiKeys[api].scope === 'tablet'
    let lastError = new FlussError('NETWORK_EXCEPTION', 'The metadata names no server')
    for (let round = 0; round < 2; round++) {
      if (round > 0) await this.update({})
      for (const node of this.#candidates()) {
        if (tabletOnly && node.role !== 'tablet') continue
        try {
          return await this.request(node, api, request)
        } catch (e) {
          lastError = toFlussError(e)
          if (!lastError.is('NETWORK_EXCEPTION')) throw lastError
        }
      }
    }
    throw lastError
  }

  /**
   * Sends a request to the coordinator named in metadata. Finding and connecting to it is retried
   * (with a metadata refresh) until the request timeout; the request itself is sent once, since DDL
   * is not safe to repeat.
   */
  async requestCoordinator<K extends ApiName>(api: K, request: ApiRequestInit<K>): Promise<ApiResponse<K>> {
    const deadline = Date.now() + this.#options.requestTimeoutMs
    for (let attempt = 1; ; attempt++) {
      const coordinator = this.#cluster.coordinator
      let connection: ClientConnection | undefined
      let error: FlussError | undefined
      if (coordinator === undefined) {
        error = new FlussError('NETWORK_EXCEPTION', 'The metadata names no coordinator server')
      } else {
        connection = await this.connection(coordinator).catch(e => {
          error = toFlussError(e)
          return undefined
        })
      }
      if (connection !== undefined) return connection.request(api, request)
      if (Date.now() + exponentialBackoffMs(attempt, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS) > deadline)
        throw error
      await sleep(exponentialBackoffMs(attempt, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS))
      await this.update({}).catch(() => undefined)
    }
  }

  async #updateWithRetry(query: MetadataQuery): Promise<Cluster> {
    const deadline = Date.now() + this.#options.requestTimeoutMs
    for (let attempt = 1; ; attempt++) {
      let error: FlussError
      try {
        const response = await this.#fetchMetadata(query)
        if (response.tabletServers.length > 0) {
          this.#cluster = this.#cluster.withMetadata(response)
          return this.#cluster
        }
        error = new FlussError(
          'NETWORK_EXCEPTION',
          'The cluster has no tablet servers yet (metadata answer was empty)',
        )
      } catch (e) {
        error = toFlussError(e)
        if (!error.retriable) throw error
      }
      const delayMs = exponentialBackoffMs(attempt, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
      if (Date.now() + delayMs > deadline) {
        throw new FlussError(
          error.spec,
          `Metadata update failed within ${this.#options.requestTimeoutMs} ms: ${error.message}`,
          { cause: error },
        )
      }
      await sleep(delayMs)
    }
  }

  /** One GET_METADATA round: each known server (or bootstrap server) in turn until one answers. */
  async #fetchMetadata(query: MetadataQuery): Promise<MetadataResponse> {
    const request = {
      tablePath: (query.tables ?? []).map(pbTablePath),
      partitionsPath: (query.partitions ?? []).map(p => ({
        ...pbTablePath(p.tablePath),
        partitionName: p.partitionName ?? null,
      })),
      partitionsId: [...(query.partitionIds ?? [])],
    }
    const targets: ServerEndpoint[] = this.#candidates().map(endpointOf)
    if (targets.length === 0) targets.push(...this.#options.bootstrapServers)
    let lastError: FlussError = new FlussError('NETWORK_EXCEPTION', 'No server to ask for metadata')
    for (const target of targets) {
      try {
        return await this.#pool.request(target, 'GET_METADATA', request)
      } catch (e) {
        lastError = toFlussError(e)
        if (!lastError.is('NETWORK_EXCEPTION')) throw lastError
      }
    }
    // Known servers may all be gone (a restarted cluster): fall back to the bootstrap list.
    if (this.#cluster.tabletServers.size > 0) {
      for (const target of this.#options.bootstrapServers) {
        try {
          return await this.#pool.request(target, 'GET_METADATA', request)
        } catch (e) {
          lastError = toFlussError(e)
          if (!lastError.is('NETWORK_EXCEPTION')) throw lastError
        }
      }
    }
    throw lastError
  }

  /** Tablet servers in random order, then the coordinator. */
  #candidates(): ServerNode[] {
    const servers = [...this.#cluster.tabletServers.values()]
    for (let i = servers.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[servers[i], servers[j]] = [servers[j], servers[i]]
    }
    const coordinator = this.#cluster.coordinator
    return coordinator === undefined ? servers : [...servers, coordinator]
  }
}

/** The pool endpoint of a server named in metadata (its role is checked at connect). */
export function endpointOf(node: ServerNode): ServerEndpoint {
  return { host: node.host, port: node.port, role: node.role }
}

function pbTablePath(path: TablePath) {
  return { databaseName: path.databaseName, tableName: path.tableName }
}

function queryKey(query: MetadataQuery): string {
  const tables = (query.tables ?? []).map(tablePathToString).sort()
  const partitions = (query.partitions ?? [])
    .map(p => `${tablePathToString(p.tablePath)}/${p.partitionName ?? ''}`)
    .sort()
  const ids = [...(query.partitionIds ?? [])].sort((a, b) => a - b)
  return JSON.stringify([tables, partitions, ids])
}
