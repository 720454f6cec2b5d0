import type { Session } from '../security/session.js'
import type { ApiName, ApiNameFor, ApiRequest, ApiResponseInit, ApiSpec } from './api-keys.js'

/** What a server plays: one Fluss role, or both on one listener (then ApiVersions omits server_type). */
export type ServerRole = 'coordinator' | 'tablet' | 'combined'

/** Fluss's `server_type` value in ApiVersionsResponse. */
export const SERVER_TYPE_ID = { coordinator: 1, tablet: 2 } as const

/** Connection attribute: the `client_software_name` the peer sent in its ApiVersions handshake. */
export const CLIENT_SOFTWARE_NAME = 'clientSoftwareName'
/** Connection attribute: the `client_software_version` of the handshake. */
export const CLIENT_SOFTWARE_VERSION = 'clientSoftwareVersion'

/** Whether the peer is Sluice's own SDK or server (they name themselves `sluice`, `sluice-...`). */
export function isSluiceClient(connection: ConnectionInfo): boolean {
  const name = connection.attributes.get(CLIENT_SOFTWARE_NAME)
  return typeof name === 'string' && (name === 'sluice' || name.startsWith('sluice-'))
}

/** One accepted client connection, as seen by handlers and hooks. */
export interface ConnectionInfo {
  /** Unique per server, counting from 1. */
  readonly id: number
  readonly clientAddress: string
  readonly clientPort: number
  readonly listenerName: string
  /** Per-connection state kept by hooks and handlers. */
  readonly attributes: Map<string, unknown>
  /** Who is on the other end: authentication state and principal. */
  readonly session: Session
}

/** Everything a handler may need besides the request itself. */
export interface RequestContext {
  readonly api: ApiSpec
  readonly apiVersion: number
  readonly requestId: number
  readonly connection: ConnectionInfo
  /** Aborted when the request times out or the connection closes; long waits should listen to it. */
  readonly signal: AbortSignal
}

/**
 * Serves one API: gets the decoded request, returns the response to encode. Throw a FlussError for an
 * expected whole-request failure (it becomes an ERROR_RESPONSE with that code); anything else thrown
 * becomes UNKNOWN_SERVER_ERROR. Per-bucket failures belong in the response's error_code fields.
 * Request `bytes` fields are views into the received frame; large response `bytes` (records) are
 * written to the socket without a copy, so they must not be modified after the handler returns.
 */
export type Handler<K extends ApiName> = (
  request: ApiRequest<K>,
  ctx: RequestContext,
) => ApiResponseInit<K> | Promise<ApiResponseInit<K>>

/** A handler for each of the APIs `K`; API_VERSIONS is answered by the server itself. */
export type Handlers<K extends ApiName = Exclude<ApiName, 'API_VERSIONS'>> = { readonly [P in K]: Handler<P> }

/** Every API a tablet server serves (exhaustively checked when a service declares this type). */
export type TabletHandlers = Handlers<Exclude<ApiNameFor<'tablet'>, 'API_VERSIONS'>>
/** Every API a coordinator serves. */
export type CoordinatorHandlers = Handlers<Exclude<ApiNameFor<'coordinator'>, 'API_VERSIONS'>>

export interface HandlerOptions {
  /** Overrides the server's request timeout for this API. */
  readonly timeoutMs?: number
  /** Narrows the advertised version range (within the API's own range). */
  readonly minVersion?: number
  readonly maxVersion?: number
}

/**
 * The per-request security layer (authorization): `check` runs before the handler and throws a
 * FlussError to refuse the request, `filter` may narrow the handler's answer (list calls). Runs
 * for every API except API_VERSIONS and AUTHENTICATE, after authentication.
 */
export interface RequestGuard {
  check(request: unknown, ctx: RequestContext): void | Promise<void>
  filter?(response: unknown, request: unknown, ctx: RequestContext): unknown | Promise<unknown>
}

/** Runs before every request (API_VERSIONS included); throwing a FlussError rejects the request. */
export type RequestHook = (ctx: RequestContext) => void | Promise<void>

/** Where the RPC layer reports problems that reach no caller. */
export interface RpcLogger {
  warn(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_LOGGER: RpcLogger = { warn() {} }

/**
 * Told once per request, when its response frame is ready (request metrics): the API key, the
 * request frame's size, `performance.now()` when it was read, and the response frame.
 */
export interface RequestObserver {
  completed(apiKey: number, requestBytes: number, startMs: number, response: readonly Buffer[]): void
}
