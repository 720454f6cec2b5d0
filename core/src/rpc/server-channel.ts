import type { Socket } from 'node:net'
import { ERRORS, FlussError } from '../errors/index.js'
import { notAuthenticatedError } from '../security/server-authenticator.js'
import type { Session } from '../security/session.js'
import { type ApiSpec, describeApiKey } from './api-keys.js'
import {
  encodeErrorResponse,
  encodeServerFailure,
  encodeSuccessResponse,
  parseRequestFrame,
  REQUEST_HEADER_BYTES,
  type RequestFrame,
} from './frame.js'
import { FrameDecoder } from './frame-decoder.js'
import {
  CLIENT_SOFTWARE_NAME,
  CLIENT_SOFTWARE_VERSION,
  type ConnectionInfo,
  type RequestContext,
  type RequestGuard,
  type RequestHook,
  type RequestObserver,
  type RpcLogger,
} from './handler.js'

/** A registered API as the channel runs it. */
export interface RegisteredApi {
  readonly spec: ApiSpec
  readonly minVersion: number
  readonly maxVersion: number
  readonly timeoutMs: number
  invoke(request: unknown, ctx: RequestContext): unknown
}

export interface ChannelConfig {
  readonly maxFrameBytes: number
  readonly maxInFlight: number
  readonly idleTimeoutMs: number
  readonly serverName: string
  readonly logger: RpcLogger
  readonly beforeRequest?: RequestHook
  readonly observer?: RequestObserver
  readonly guard?: RequestGuard
  lookup(apiKey: number): RegisteredApi | undefined
}

const API_VERSIONS_KEY = 1000
const AUTHENTICATE_KEY = 1038

/** Longest error message put on the wire for an unexpected (non-Fluss) failure. */
const UNEXPECTED_MESSAGE_CHARS = 512

/**
 * The server side of one connection: frames in, handlers run concurrently, responses out in
 * completion order. At most `maxInFlight` requests run (or wait for their response to be written);
 * at the limit the socket is paused and resumed once a response has been written.
 */
export class ServerChannel {
  readonly info: ConnectionInfo
  /** Resolves once the socket is closed. */
  readonly closed: Promise<void>
  readonly #socket: Socket
  readonly #config: ChannelConfig
  readonly #decoder: FrameDecoder
  readonly #idleTimer: NodeJS.Timeout
  readonly #controllers = new Set<AbortController>()
  #backlog: Buffer[] = []
  #inFlight = 0
  #state: 'open' | 'draining' | 'failed' | 'closed' = 'open'
  #readEnded = false

  constructor(socket: Socket, id: number, listenerName: string, session: Session, config: ChannelConfig) {
    this.#socket = socket
    this.#config = config
    this.info = {
      id,
      clientAddress: socket.remoteAddress ?? '',
      clientPort: socket.remotePort ?? 0,
      listenerName,
      attributes: new Map(),
      session,
    }
    this.#decoder = new FrameDecoder({
      maxFrameBytes: config.maxFrameBytes,
      minFrameBytes: REQUEST_HEADER_BYTES,
    })
    this.#idleTimer = setTimeout(() => this.#onIdle(), config.idleTimeoutMs)
    this.closed = new Promise(resolve => socket.once('close', () => resolve()))
    socket.on('data', chunk => this.#onData(chunk as Buffer))
    socket.on('end', () => this.#onEnd())
    socket.on('close', () => this.#onClose())
    socket.on('error', err =>
      config.logger.warn('rpc connection error', { connection: id, error: err.message }),
    )
  }

  get inFlight(): number {
    return this.#inFlight
  }

  /** Stops reading; closes once the requests in flight have been answered. */
  drain(): void {
    if (this.#state !== 'open') return
    this.#state = 'draining'
    this.#backlog = []
    this.#socket.pause()
    this.#endIfIdle()
  }

  /** Closes at once; handlers still running see their signal aborted. */
  destroy(): void {
    this.#socket.destroy()
  }

  #onData(chunk: Buffer): void {
    if (this.#state !== 'open') return
    this.#idleTimer.refresh()
    try {
      this.#decoder.push(chunk, frame => this.#accept(frame))
    } catch (e) {
      this.#fail(e instanceof FlussError ? e : new FlussError('CORRUPT_MESSAGE', String(e)))
      return
    }
    this.#updateFlow()
  }

  #accept(frame: Buffer): void {
    if (this.#state !== 'open') return
    if (this.#inFlight >= this.#config.maxInFlight) this.#backlog.push(frame)
    else this.#start(frame)
  }

  #start(frame: Buffer): void {
    this.#inFlight++
    const request = parseRequestFrame(frame)
    const observer = this.#config.observer
    const startMs = observer === undefined ? 0 : performance.now()
    void this.#process(request).then(chunks => {
      observer?.completed(request.apiKey, frame.length, startMs, chunks)
      this.#write(chunks)
    })
  }

  /** Runs one request to its response frame; never rejects. */
  async #process(frame: RequestFrame): Promise<Buffer[]> {
    const { apiKey, apiVersion, requestId } = frame
    const api = this.#config.lookup(apiKey)
    if (api === undefined) {
      const message = `${describeApiKey(apiKey)} is not supported by ${this.#config.serverName}`
      return encodeErrorResponse(requestId, ERRORS.UNSUPPORTED_VERSION.code, message)
    }
    // ApiVersions is answered at any version: the handshake must work for clients newer than us.
    const handshake = api.spec.name === 'API_VERSIONS' && apiVersion >= 0
    if (!handshake && (apiVersion < api.minVersion || apiVersion > api.maxVersion)) {
      const message = `${api.spec.name} version ${apiVersion} is not supported (versions ${api.minVersion}..${api.maxVersion})`
      return encodeErrorResponse(requestId, ERRORS.UNSUPPORTED_VERSION.code, message)
    }
    if (
      this.info.session.state === 'authenticating' &&
      apiKey !== API_VERSIONS_KEY &&
      apiKey !== AUTHENTICATE_KEY
    ) {
      const e = notAuthenticatedError()
      return encodeErrorResponse(requestId, e.wireCode, e.message)
    }
    let request: unknown
    try {
      request = api.spec.request.decode(frame.body)
    } catch (e) {
      return encodeErrorResponse(requestId, ERRORS.CORRUPT_MESSAGE.code, (e as Error).message)
    }
    if (handshake) {
      const hello = request as { clientSoftwareName?: string | null; clientSoftwareVersion?: string | null }
      if (hello.clientSoftwareName) this.info.attributes.set(CLIENT_SOFTWARE_NAME, hello.clientSoftwareName)
      if (hello.clientSoftwareVersion)
        this.info.attributes.set(CLIENT_SOFTWARE_VERSION, hello.clientSoftwareVersion)
    }
    const controller = new AbortController()
    this.#controllers.add(controller)
    const ctx: RequestContext = {
      api: api.spec,
      apiVersion,
      requestId,
      connection: this.info,
      signal: controller.signal,
    }
    try {
      const response = await runWithTimeout(
        () => this.#invoke(api, request, ctx),
        api.timeoutMs,
        controller,
        api.spec,
      )
      return encodeSuccessResponse(requestId, api.spec.response, response)
    } catch (e) {
      return this.#errorResponse(requestId, api.spec, e)
    } finally {
      this.#controllers.delete(controller)
    }
  }

  async #invoke(api: RegisteredApi, request: unknown, ctx: RequestContext): Promise<unknown> {
    if (this.#config.beforeRequest) await this.#config.beforeRequest(ctx)
    const guard = this.#config.guard
    if (guard === undefined || api.spec.key === API_VERSIONS_KEY || api.spec.key === AUTHENTICATE_KEY)
      return api.invoke(request, ctx)
    await guard.check(request, ctx)
    const response = await api.invoke(request, ctx)
    return guard.filter === undefined ? response : guard.filter(response, request, ctx)
  }

  #errorResponse(requestId: number, spec: ApiSpec, e: unknown): Buffer[] {
    if (e instanceof FlussError) return encodeErrorResponse(requestId, e.wireCode, e.message)
    const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
    this.#config.logger.warn('rpc handler failed unexpectedly', {
      api: spec.name,
      requestId,
      connection: this.info.id,
      error: detail,
    })
    const message = `${spec.name} failed: ${detail}`.slice(0, UNEXPECTED_MESSAGE_CHARS)
    return encodeErrorResponse(requestId, ERRORS.UNKNOWN_SERVER_ERROR.code, message)
  }

  #write(chunks: Buffer[]): void {
    const socket = this.#socket
    if (this.#state === 'failed' || this.#state === 'closed' || socket.destroyed || !socket.writable) {
      this.#release()
      return
    }
    this.#idleTimer.refresh()
    socket.cork()
    const last = chunks.length - 1
    for (let i = 0; i < last; i++) socket.write(chunks[i])
    socket.write(chunks[last], () => this.#release())
    socket.uncork()
  }

  /** A response was written (or dropped): free its slot, start waiting requests, maybe resume. */
  #release(): void {
    this.#inFlight--
    if (this.#state === 'open') {
      while (this.#backlog.length > 0 && this.#inFlight < this.#config.maxInFlight) {
        this.#start(this.#backlog.shift() as Buffer)
      }
      this.#updateFlow()
    }
    this.#endIfIdle()
  }

  #updateFlow(): void {
    const full = this.#inFlight >= this.#config.maxInFlight || this.#backlog.length > 0
    if (full && !this.#socket.isPaused()) this.#socket.pause()
    else if (!full && this.#state === 'open' && this.#socket.isPaused()) this.#socket.resume()
  }

  #endIfIdle(): void {
    const finishing = this.#state === 'draining' || this.#readEnded
    if (finishing && this.#inFlight === 0 && this.#backlog.length === 0 && !this.#socket.writableEnded) {
      this.#socket.end()
      // Keep reading (and discarding, see #onData) so the peer's FIN is seen and 'close' fires.
      if (this.#socket.isPaused()) this.#socket.resume()
    }
  }

  /** A connection-level failure: send SERVER_FAILURE, stop serving, close. */
  #fail(error: FlussError): void {
    this.#state = 'failed'
    this.#backlog = []
    for (const controller of this.#controllers) controller.abort()
    if (!this.#socket.writable) return
    for (const chunk of encodeServerFailure(error.wireCode, error.message)) this.#socket.write(chunk)
    this.#socket.end()
  }

  #onEnd(): void {
    this.#readEnded = true
    this.#endIfIdle()
  }

  #onIdle(): void {
    if (this.#state === 'failed' || (this.#inFlight === 0 && this.#backlog.length === 0))
      this.#socket.destroy()
    else this.#idleTimer.refresh()
  }

  #onClose(): void {
    this.#state = 'closed'
    this.#backlog = []
    clearTimeout(this.#idleTimer)
    for (const controller of this.#controllers) controller.abort()
  }
}

function runWithTimeout<T>(
  fn: () => Promise<T>,
  timeoutMs: number,
  controller: AbortController,
  spec: ApiSpec,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort()
      reject(new FlussError('REQUEST_TIME_OUT', `${spec.name} did not complete within ${timeoutMs} ms`))
    }, timeoutMs)
    fn().then(
      value => {
        clearTimeout(timer)
        resolve(value)
      },
      error => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
