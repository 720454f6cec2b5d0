import { FlussError } from '../errors/index.js'
import type { ApiName, ApiRequestInit, ApiResponse } from './api-keys.js'
import { ClientConnection, type ClientConnectionOptions, type RequestOptions } from './client-connection.js'

export type ConnectionPoolOptions = Omit<ClientConnectionOptions, 'host' | 'port' | 'expectedRole'>

/** A server to talk to; `role` is checked against the server's ApiVersions answer when known. */
export interface ServerEndpoint {
  readonly host: string
  readonly port: number
  readonly role?: 'coordinator' | 'tablet'
}

/**
 * One connection per `host:port`, opened on first use. A connection that failed or closed is
 * dropped from the pool, so the next use opens a new one; concurrent first uses share one attempt.
 */
export class ConnectionPool {
  readonly #options: ConnectionPoolOptions
  readonly #connections = new Map<string, Promise<ClientConnection>>()
  #closed = false

  constructor(options: ConnectionPoolOptions = {}) {
    this.#options = options
  }

  /** Open (or being opened) connections. */
  get size(): number {
    return this.#connections.size
  }

  /** The connection to `endpoint`, connecting if there is no open one. */
  async get(endpoint: ServerEndpoint): Promise<ClientConnection> {
    if (this.#closed) throw new FlussError('NETWORK_EXCEPTION', 'The connection pool is closed')
    const key = `${endpoint.host}:${endpoint.port}`
    const existing = this.#connections.get(key)
    if (existing !== undefined) {
      const connection = await existing.catch(() => undefined)
      if (connection?.isOpen) return connection
      const current = this.#connections.get(key)
      if (current !== undefined && current !== existing) return this.get(endpoint)
    }
    return this.#connect(key, endpoint)
  }

  /** Sends one request to `endpoint` over the pooled connection. */
  async request<K extends ApiName>(
    endpoint: ServerEndpoint,
    name: K,
    request: ApiRequestInit<K>,
    options?: RequestOptions,
  ): Promise<ApiResponse<K>> {
    const connection = await this.get(endpoint)
    return connection.request(name, request, options)
  }

  /** Closes every connection; later use fails. */
  async close(): Promise<void> {
    this.#closed = true
    const all = [...this.#connections.values()]
    this.#connections.clear()
    await Promise.all(
      all.map(p =>
        p.then(
          c => c.close(),
          () => undefined,
        ),
      ),
    )
  }

  #connect(key: string, endpoint: ServerEndpoint): Promise<ClientConnection> {
    const attempt = ClientConnection.connect({
      ...this.#options,
      host: endpoint.host,
      port: endpoint.port,
      expectedRole: endpoint.role,
    })
    this.#connections.set(key, attempt)
    const forget = () => {
      if (this.#connections.get(key) === attempt) this.#connections.delete(key)
    }
    attempt.then(connection => connection.closed.then(forget), forget)
    return attempt
  }
}
