import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer, type TLSSocket } from 'node:tls'
import {
  SLUICE_RPC_SERVER_MAX_CONNECTIONS,
  SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_SERVER_REQUEST_TIMEOUT,
  SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT,
} from '../config/index.js'
import { NETTY_CONNECTION_MAX_IDLE_TIME, NETTY_SERVER_MAX_REQUEST_SIZE } from '../config/options-server.js'
import { assert } from '../errors/index.js'
import type { ListenerSecurity } from '../security/listener-security.js'
import { refusePlaintextAuthenticate } from '../security/server-authenticator.js'
import { Session } from '../security/session.js'
import { certificatePrincipal } from '../security/tls.js'
import { type ApiName, apiSpec } from './api-keys.js'
import type { ApiVersionsResponseInit } from './generated/fluss-api.js'
import {
  type Handler,
  type HandlerOptions,
  type Handlers,
  type RequestGuard,
  type RequestHook,
  type RequestObserver,
  type RpcLogger,
  SERVER_TYPE_ID,
  type ServerRole,
  SILENT_LOGGER,
} from './handler.js'
import { type ChannelConfig, type RegisteredApi, ServerChannel } from './server-channel.js'

export interface RpcServerOptions {
  readonly role: ServerRole
  /** Bind address; default 127.0.0.1. */
  readonly host?: string
  /** 0 (default) picks a free port. */
  readonly port?: number
  /** Reported to handlers in ConnectionInfo; default 'FLUSS'. */
  readonly listenerName?: string
  readonly maxRequestBytes?: number
  readonly maxInFlightPerConnection?: number
  readonly requestTimeoutMs?: number
  readonly idleTimeoutMs?: number
  readonly maxConnections?: number
  readonly shutdownTimeoutMs?: number
  readonly beforeRequest?: RequestHook
  /** Authorization of every request (after authentication); none: every request is served. */
  readonly guard?: RequestGuard
  /** How the listener is secured (TLS, SASL, internal); none: PLAINTEXT, not internal. */
  readonly security?: ListenerSecurity
  /** How often TLS files are checked for a renewed certificate (default 1 min). */
  readonly tlsReloadIntervalMs?: number
  readonly logger?: RpcLogger & { info?(message: string, fields?: Record<string, unknown>): void }
  /** Told of every completed request (request metrics). */
  readonly observer?: RequestObserver
}

export interface ServerAddress {
  readonly host: string
  readonly port: number
}

type ServedApiName = Exclude<ApiName, 'API_VERSIONS' | 'AUTHENTICATE'>

const DEFAULT_TLS_RELOAD_INTERVAL_MS = 60_000
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000

/**
 * A Fluss RPC listener: accepts connections, dispatches requests to the handler registered for their
 * API key and answers API_VERSIONS itself with exactly the registered APIs and versions.
 */
export class RpcServer {
  readonly #options: RpcServerOptions
  readonly #apis = new Map<number, RegisteredApi>()
  readonly #channels = new Set<ServerChannel>()
  readonly #channelConfig: ChannelConfig
  #server: Server | undefined
  #address: ServerAddress | undefined
  #nextConnectionId = 1
  #stopTlsWatch: (() => void) | undefined
  /** TCP sockets of a TLS listener (including those still in the handshake). */
  readonly #rawSockets = new Set<Socket>()
  /** `address:port` of TLS connections past the handshake. */
  readonly #secured = new Set<string>()

  constructor(options: RpcServerOptions) {
    this.#options = options
    const serverName = options.role === 'combined' ? 'this server' : `this ${options.role} server`
    this.#channelConfig = {
      maxFrameBytes: options.maxRequestBytes ?? (NETTY_SERVER_MAX_REQUEST_SIZE.defaultValue as number),
      maxInFlight:
        options.maxInFlightPerConnection ?? (SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS.defaultValue as number),
      idleTimeoutMs: options.idleTimeoutMs ?? (NETTY_CONNECTION_MAX_IDLE_TIME.defaultValue as number),
      serverName,
      logger: options.logger ?? SILENT_LOGGER,
      beforeRequest: options.beforeRequest,
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      guard: options.guard,
      lookup: key => this.#apis.get(key),
    }
    const versions = apiSpec('API_VERSIONS')
    this.#apis.set(versions.key, {
      spec: versions,
      minVersion: versions.minVersion,
      maxVersion: versions.maxVersion,
      timeoutMs: this.#defaultTimeoutMs(),
      invoke: () => this.apiVersions(),
    })
    const authenticate = apiSpec('AUTHENTICATE')
    const sasl = options.security?.sasl
    const protocol = options.security?.protocol ?? 'PLAINTEXT'
    this.#apis.set(authenticate.key, {
      spec: authenticate,
      minVersion: authenticate.minVersion,
      maxVersion: authenticate.maxVersion,
      timeoutMs: this.#defaultTimeoutMs(),
      invoke: (request, ctx) => {
        const req = request as Parameters<NonNullable<typeof sasl>['authenticate']>[0]
        return sasl === undefined
          ? refusePlaintextAuthenticate(req, protocol)
          : sasl.authenticate(req, ctx.connection.session)
      },
    })
  }

  /** Registers the handler of one API. */
  register<K extends ServedApiName>(name: K, handler: Handler<K>, options: HandlerOptions = {}): this {
    const spec = apiSpec(name)
    const role = this.#options.role
    assert(
      role === 'combined' || spec.scope === 'both' || spec.scope === role,
      `${name} is not served by a ${role} server`,
    )
    assert(!this.#apis.has(spec.key), `${name} is registered twice`)
    const minVersion = options.minVersion ?? spec.minVersion
    const maxVersion = options.maxVersion ?? spec.maxVersion
    assert(
      spec.minVersion <= minVersion && minVersion <= maxVersion && maxVersion <= spec.maxVersion,
      `${name} versions ${minVersion}..${maxVersion} are outside ${spec.minVersion}..${spec.maxVersion}`,
    )
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs()
    const invoke = handler as (request: unknown, ctx: Parameters<Handler<K>>[1]) => unknown
    this.#apis.set(spec.key, { spec, minVersion, maxVersion, timeoutMs, invoke })
    return this
  }

  /** Registers every handler of a map (e.g. a service's `TabletHandlers`). */
  registerAll(handlers: Partial<Handlers>, options: HandlerOptions = {}): this {
    for (const [name, handler] of Object.entries(handlers)) {
      if (handler !== undefined)
        this.register(name as ServedApiName, handler as Handler<ServedApiName>, options)
    }
    return this
  }

  /** The ApiVersions answer: every registered API with its versions, and the server type. */
  apiVersions(): ApiVersionsResponseInit {
    const apiVersions = [...this.#apis.values()]
      .map(a => ({ apiKey: a.spec.key, minVersion: a.minVersion, maxVersion: a.maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey)
    const role = this.#options.role
    return role === 'combined' ? { apiVersions } : { apiVersions, serverType: SERVER_TYPE_ID[role] }
  }

  /** Starts listening; resolves with the bound address (the real port when port 0 was asked). */
  start(): Promise<ServerAddress> {
    assert(this.#server === undefined, 'RpcServer started twice')
    const server = this.#createServer()
    server.maxConnections =
      this.#options.maxConnections ?? (SLUICE_RPC_SERVER_MAX_CONNECTIONS.defaultValue as number)
    this.#server = server
    const host = this.#options.host ?? '127.0.0.1'
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.#options.port ?? 0, host, () => {
        server.off('error', reject)
        server.on('error', err =>
          this.#channelConfig.logger.warn('rpc listener error', { error: err.message }),
        )
        const bound = server.address()
        assert(bound !== null && typeof bound === 'object', 'a TCP listener has an address')
        this.#address = { host: bound.address, port: bound.port }
        resolve(this.#address)
      })
    })
  }

  get address(): ServerAddress {
    assert(this.#address !== undefined, 'RpcServer is not started')
    return this.#address
  }

  /** Whether the listener speaks TLS. */
  get tls(): boolean {
    return this.#options.security?.tls !== undefined
  }

  /** Open connections. */
  get connectionCount(): number {
    return this.#channels.size
  }

  /**
   * Stops accepting connections, lets requests in flight finish for up to `timeoutMs`, then drops
   * every connection. Requests not yet started are dropped (clients see a retriable disconnect).
   */
  async close(timeoutMs?: number): Promise<void> {
    const server = this.#server
    if (server === undefined) return
    this.#stopTlsWatch?.()
    const listenerClosed = new Promise<void>(resolve => server.close(() => resolve()))
    const channels = [...this.#channels]
    for (const channel of channels) channel.drain()
    const deadlineMs =
      timeoutMs ??
      this.#options.shutdownTimeoutMs ??
      (SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT.defaultValue as number)
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>(resolve => {
      timer = setTimeout(resolve, deadlineMs)
    })
    await Promise.race([Promise.all(channels.map(c => c.closed)), deadline])
    clearTimeout(timer)
    for (const channel of this.#channels) channel.destroy()
    for (const socket of this.#rawSockets) socket.destroy()
    await listenerClosed
  }

  #createServer(): Server {
    const tls = this.#options.security?.tls
    if (tls === undefined)
      return createServer({ allowHalfOpen: true, noDelay: true }, socket => this.#onConnection(socket))
    const server = createTlsServer(
      { ...tls.serverOptions(), allowHalfOpen: true, handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS },
      socket => {
        socket.setNoDelay(true)
        this.#secured.add(`${socket.remoteAddress}:${socket.remotePort}`)
        socket.once('close', () => this.#secured.delete(`${socket.remoteAddress}:${socket.remotePort}`))
        this.#onConnection(socket)
      },
    )
    server.on('connection', (raw: Socket) => {
      this.#rawSockets.add(raw)
      // Half-open is for answering after a client's FIN; a FIN during the handshake just ends it.
      const key = `${raw.remoteAddress}:${raw.remotePort}`
      raw.once('end', () => {
        if (!this.#secured.has(key)) setImmediate(() => raw.destroy())
      })
      raw.once('close', () => this.#rawSockets.delete(raw))
    })
    server.on('tlsClientError', (err, socket) => {
      // A connection closed before any handshake (load balancer health checks, port scans) is not news.
      const silent = /socket hang up|ECONNRESET/.test(err.message)
      if (!silent)
        this.#channelConfig.logger.warn('tls handshake failed', {
          address: socket.remoteAddress ?? '',
          error: err.message,
        })
      socket.destroy()
    })
    const logger = this.#options.logger ?? SILENT_LOGGER
    this.#stopTlsWatch = tls.watch(
      this.#options.tlsReloadIntervalMs ?? DEFAULT_TLS_RELOAD_INTERVAL_MS,
      context => server.setSecureContext({ ...context }),
      logger,
    )
    return server
  }

  #onConnection(socket: Socket): void {
    const listenerName = this.#options.listenerName ?? 'FLUSS'
    const security = this.#options.security
    const certificate = security?.tls === undefined ? undefined : certificatePrincipal(socket as TLSSocket)
    const session = new Session(
      socket.remoteAddress ?? '',
      listenerName,
      security?.internal ?? false,
      security?.sasl !== undefined,
      certificate,
      certificate === undefined ? 'none' : 'tls',
    )
    const channel = new ServerChannel(
      socket,
      this.#nextConnectionId++,
      listenerName,
      session,
      this.#channelConfig,
    )
    this.#channels.add(channel)
    void channel.closed.then(() => this.#channels.delete(channel))
  }

  #defaultTimeoutMs(): number {
    return this.#options.requestTimeoutMs ?? (SLUICE_RPC_SERVER_REQUEST_TIMEOUT.defaultValue as number)
  }
}
