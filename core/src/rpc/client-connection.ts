import { connect, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import {
  SLUICE_RPC_CLIENT_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_CLIENT_MAX_QUEUED_REQUESTS,
  SLUICE_RPC_CLIENT_MAX_RESPONSE_SIZE,
} from '../config/index.js'
import { CLIENT_CONNECT_TIMEOUT, CLIENT_REQUEST_TIMEOUT } from '../config/options-client.js'
import { NETTY_CONNECTION_MAX_IDLE_TIME } from '../config/options-server.js'
import { FlussError } from '../errors/index.js'
import { type ClientSecurity, newSaslClient, tlsConnectOptions } from '../security/client-security.js'
import { exponentialBackoffMs } from '../util/backoff.js'
import { sleep } from '../util/sleep.js'
import { type ApiName, type ApiRequestInit, type ApiResponse, type ApiSpec, apiSpec } from './api-keys.js'
import { ServerApiVersions } from './api-versions.js'
import { decodeErrorBody, encodeRequest, parseResponseFrame, ResponseType } from './frame.js'
import { FrameDecoder } from './frame-decoder.js'

export interface ClientConnectionOptions {
  readonly host: string
  readonly port: number
  /** The role the caller believes the server has; checked against ApiVersions when both are known. */
  readonly expectedRole?: 'coordinator' | 'tablet'
  /** TCP connect plus the ApiVersions handshake. */
  readonly connectTimeoutMs?: number
  readonly requestTimeoutMs?: number
  readonly maxInFlight?: number
  readonly maxQueued?: number
  readonly maxResponseBytes?: number
  /** Close the connection after this long with nothing in flight. */
  readonly idleTimeoutMs?: number
  readonly clientSoftwareName?: string
  readonly clientSoftwareVersion?: string
  /** TLS and SASL; none: PLAINTEXT. */
  readonly security?: ClientSecurity
}

export interface RequestOptions {
  readonly timeoutMs?: number
  /** A specific API version (must be supported by both sides); default the highest common one. */
  readonly apiVersion?: number
}

interface Pending {
  readonly requestId: number
  readonly spec: ApiSpec
  chunks: Buffer[] | undefined
  readonly resolve: (response: unknown) => void
  readonly reject: (error: FlussError) => void
  timer?: NodeJS.Timeout
}

const SOFTWARE_NAME = 'sluice'
const SOFTWARE_VERSION = '0.1.0'
/** Backoff of AUTHENTICATE retries after RETRIABLE_AUTHENTICATE_EXCEPTION (Fluss: 100 ms × 2 up to 5 s). */
const AUTH_RETRY_INITIAL_MS = 100
const AUTH_RETRY_MAX_MS = 5_000
/** Most rounds of one SASL exchange (SCRAM needs two). */
const MAX_SASL_ROUNDS = 8

/**
 * A client connection to one Fluss server: ApiVersions handshake on connect, then pipelined requests
 * matched to responses by request id. At most `maxInFlight` requests are on the wire; up to
 * `maxQueued` more wait for a slot. Every request has a timeout (REQUEST_TIME_OUT); a disconnect fails
 * everything outstanding with NETWORK_EXCEPTION (retriable); error frames become the server's
 * FlussError.
 */
export class ClientConnection {
  readonly endpoint: string
  readonly #options: ClientConnectionOptions
  readonly #socket: Socket
  readonly #decoder: FrameDecoder
  readonly #pending = new Map<number, Pending>()
  readonly #queue: Pending[] = []
  readonly #closed: Promise<FlussError>
  #resolveClosed!: (reason: FlussError) => void
  #closeReason: FlussError | undefined
  #versions: ServerApiVersions | undefined
  #nextRequestId = 0
  #idleTimer: NodeJS.Timeout | undefined

  /** Opens a connection and completes the ApiVersions handshake. */
  static async connect(options: ClientConnectionOptions): Promise<ClientConnection> {
    const connection = new ClientConnection(options)
    await connection.#handshake()
    return connection
  }

  private constructor(options: ClientConnectionOptions) {
    this.#options = options
    this.endpoint = `${options.host}:${options.port}`
    const maxFrameBytes =
      options.maxResponseBytes ?? (SLUICE_RPC_CLIENT_MAX_RESPONSE_SIZE.defaultValue as number)
    this.#decoder = new FrameDecoder({ maxFrameBytes, minFrameBytes: 1 })
    this.#closed = new Promise(resolve => {
      this.#resolveClosed = resolve
    })
    const tls = options.security?.tls
    this.#socket =
      tls === undefined
        ? connect({ host: options.host, port: options.port, noDelay: true })
        : connectTls({ host: options.host, port: options.port, ...tlsConnectOptions(tls, options.host) })
    if (tls !== undefined) this.#socket.setNoDelay(true)
    this.#socket.on('data', chunk => this.#onData(chunk as Buffer))
    this.#socket.on('error', err => this.#shutdown(this.#networkError(err.message)))
    this.#socket.on('close', () => this.#shutdown(this.#networkError('connection closed')))
  }

  /** Whether requests can still be sent. */
  get isOpen(): boolean {
    return this.#closeReason === undefined
  }

  /** Resolves with the reason once the connection is closed. */
  get closed(): Promise<FlussError> {
    return this.#closed
  }

  /** What the server advertised (available once connected). */
  get serverApiVersions(): ServerApiVersions | undefined {
    return this.#versions
  }

  get inFlight(): number {
    return this.#pending.size
  }

  get queued(): number {
    return this.#queue.length
  }

  /**
   * Sends one request; resolves with the decoded response or rejects with a FlussError. Large `bytes`
   * fields (records) are written without a copy: do not modify them until the promise settles.
   * Response `bytes` fields are views into the received frame.
   */
  request<K extends ApiName>(
    name: K,
    request: ApiRequestInit<K>,
    options: RequestOptions = {},
  ): Promise<ApiResponse<K>> {
    const spec = apiSpec(name)
    try {
      const versions = this.#versions
      if (versions === undefined || this.#closeReason)
        throw this.#closeReason ?? this.#networkError('not connected')
      const version = versions.versionFor(spec, this.endpoint, options.apiVersion)
      return this.#enqueue(spec, version, request, options.timeoutMs) as Promise<ApiResponse<K>>
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /** Closes the connection; outstanding requests fail with NETWORK_EXCEPTION. */
  close(): void {
    this.#shutdown(this.#networkError('connection closed by the client'))
    this.#socket.destroy()
  }

  async #handshake(): Promise<void> {
    const timeoutMs = this.#options.connectTimeoutMs ?? (CLIENT_CONNECT_TIMEOUT.defaultValue as number)
    const timer = setTimeout(
      () => this.#shutdown(this.#networkError(`connect timed out after ${timeoutMs} ms`)),
      timeoutMs,
    )
    try {
      await new Promise<void>((resolve, reject) => {
        this.#socket.once(this.#options.security?.tls === undefined ? 'connect' : 'secureConnect', resolve)
        void this.#closed.then(reject)
      })
      const spec = apiSpec('API_VERSIONS')
      const response = (await this.#enqueue(
        spec,
        spec.maxVersion,
        this.#softwareInfo(),
        timeoutMs,
      )) as ApiResponse<'API_VERSIONS'>
      const versions = new ServerApiVersions(response)
      versions.checkServerType(this.#options.expectedRole, this.endpoint)
      await this.#authenticate(timeoutMs)
      this.#versions = versions
      this.#armIdleTimer()
    } catch (e) {
      this.close()
      throw e
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * SASL as Fluss's client: AUTHENTICATE with the mechanism's first token, then one more round per
   * challenge until the mechanism is complete. RETRIABLE_AUTHENTICATE_EXCEPTION restarts the exchange
   * after a backoff; any other failure (AUTHENTICATE_EXCEPTION) fails the connect.
   */
  async #authenticate(timeoutMs: number): Promise<void> {
    const sasl = this.#options.security?.sasl
    if (sasl === undefined) return
    const spec = apiSpec('AUTHENTICATE')
    for (let attempt = 0; ; attempt++) {
      const client = newSaslClient(sasl)
      try {
        let token: Buffer | null = client.initialToken()
        for (let round = 0; token !== null; round++) {
          if (round >= MAX_SASL_ROUNDS) throw new FlussError('AUTHENTICATE_EXCEPTION', 'Too many SASL rounds')
          const request = { protocol: client.mechanism, token }
          const response = (await this.#enqueue(spec, 0, request, timeoutMs)) as ApiResponse<'AUTHENTICATE'>
          const challenge = response.challenge
          token =
            challenge !== null && (challenge.length > 0 || !client.complete)
              ? client.evaluateChallenge(challenge)
              : null
          if (token === null && !client.complete)
            throw new FlussError(
              'AUTHENTICATE_EXCEPTION',
              'The server ended the SASL exchange before it completed',
            )
        }
        return
      } catch (e) {
        if (!(e instanceof FlussError) || !e.is('RETRIABLE_AUTHENTICATE_EXCEPTION')) throw e
        await sleep(exponentialBackoffMs(attempt + 1, AUTH_RETRY_INITIAL_MS, AUTH_RETRY_MAX_MS))
      }
    }
  }

  #softwareInfo(): ApiRequestInit<'API_VERSIONS'> {
    return {
      clientSoftwareName: this.#options.clientSoftwareName ?? SOFTWARE_NAME,
      clientSoftwareVersion: this.#options.clientSoftwareVersion ?? SOFTWARE_VERSION,
    }
  }

  #enqueue(spec: ApiSpec, apiVersion: number, request: unknown, timeoutMs?: number): Promise<unknown> {
    if (this.#closeReason) return Promise.reject(this.#closeReason)
    const maxInFlight =
      this.#options.maxInFlight ?? (SLUICE_RPC_CLIENT_MAX_INFLIGHT_REQUESTS.defaultValue as number)
    const maxQueued =
      this.#options.maxQueued ?? (SLUICE_RPC_CLIENT_MAX_QUEUED_REQUESTS.defaultValue as number)
    const sendNow = this.#pending.size < maxInFlight && this.#queue.length === 0
    if (!sendNow && this.#queue.length >= maxQueued) {
      const message = `${spec.name} to ${this.endpoint}: ${this.#queue.length} requests already queued behind ${maxInFlight} in flight`
      return Promise.reject(new FlussError('RESOURCE_EXHAUSTED', message))
    }
    const requestId = this.#nextRequestId
    this.#nextRequestId = (this.#nextRequestId + 1) | 0
    const chunks = encodeRequest({ apiKey: spec.key, apiVersion, requestId }, spec.request, request)
    return new Promise((resolve, reject) => {
      const pending: Pending = { requestId, spec, chunks, resolve, reject }
      const waitMs =
        timeoutMs ?? this.#options.requestTimeoutMs ?? (CLIENT_REQUEST_TIMEOUT.defaultValue as number)
      pending.timer = setTimeout(() => this.#timeout(pending, waitMs), waitMs)
      if (sendNow) this.#send(pending)
      else this.#queue.push(pending)
    })
  }

  #send(pending: Pending): void {
    const chunks = pending.chunks as Buffer[]
    pending.chunks = undefined
    this.#pending.set(pending.requestId, pending)
    this.#idleTimer?.refresh()
    this.#socket.cork()
    for (const chunk of chunks) this.#socket.write(chunk)
    this.#socket.uncork()
  }

  #pump(): void {
    const maxInFlight =
      this.#options.maxInFlight ?? (SLUICE_RPC_CLIENT_MAX_INFLIGHT_REQUESTS.defaultValue as number)
    while (this.#queue.length > 0 && this.#pending.size < maxInFlight && !this.#closeReason) {
      this.#send(this.#queue.shift() as Pending)
    }
  }

  #timeout(pending: Pending, waitMs: number): void {
    const queuedAt = this.#queue.indexOf(pending)
    if (queuedAt >= 0) this.#queue.splice(queuedAt, 1)
    else if (!this.#pending.delete(pending.requestId)) return
    const where = queuedAt >= 0 ? 'queued' : 'in flight'
    const message = `${pending.spec.name} request ${pending.requestId} to ${this.endpoint} timed out after ${waitMs} ms (${where})`
    pending.reject(new FlussError('REQUEST_TIME_OUT', message))
    this.#pump()
  }

  #onData(chunk: Buffer): void {
    this.#idleTimer?.refresh()
    try {
      this.#decoder.push(chunk, frame => this.#onFrame(frame))
    } catch (e) {
      const error = e instanceof FlussError ? e : new FlussError('CORRUPT_MESSAGE', String(e))
      this.#shutdown(error)
      this.#socket.destroy()
    }
  }

  #onFrame(frame: Buffer): void {
    const response = parseResponseFrame(frame)
    if (response.type === ResponseType.SERVER_FAILURE) {
      this.#shutdown(decodeErrorBody(response.body))
      this.#socket.destroy()
      return
    }
    const pending = this.#pending.get(response.requestId)
    if (pending === undefined) return // answered after its timeout
    this.#pending.delete(response.requestId)
    clearTimeout(pending.timer)
    try {
      if (response.type === ResponseType.ERROR) pending.reject(decodeErrorBody(response.body))
      else pending.resolve(pending.spec.response.decode(response.body))
    } catch (e) {
      pending.reject(e instanceof FlussError ? e : new FlussError('CORRUPT_MESSAGE', String(e)))
    }
    this.#pump()
  }

  #armIdleTimer(): void {
    const idleMs = this.#options.idleTimeoutMs ?? (NETTY_CONNECTION_MAX_IDLE_TIME.defaultValue as number)
    this.#idleTimer = setTimeout(() => {
      if (this.#pending.size === 0 && this.#queue.length === 0) this.close()
      else this.#idleTimer?.refresh()
    }, idleMs)
    this.#idleTimer.unref()
  }

  /** Fails everything outstanding with `reason` (first reason wins) and marks the connection closed. */
  #shutdown(reason: FlussError): void {
    if (this.#closeReason) return
    this.#closeReason = reason
    clearTimeout(this.#idleTimer)
    const outstanding = [...this.#pending.values(), ...this.#queue]
    this.#pending.clear()
    this.#queue.length = 0
    for (const pending of outstanding) {
      clearTimeout(pending.timer)
      pending.reject(reason)
    }
    this.#socket.destroy()
    this.#resolveClosed(reason)
  }

  #networkError(detail: string): FlussError {
    return new FlussError('NETWORK_EXCEPTION', `Connection to ${this.endpoint}: ${detail}`)
  }
}
