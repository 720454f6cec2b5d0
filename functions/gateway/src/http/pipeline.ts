import { type Context, Hono } from 'hono'
import type { BackendContext } from '../backend/gateway-backend.js'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import { parseJsonBody } from '../json/parse-json.js'
import type { GatewayLimits } from '../limits.js'
import { type JsonSchema, validateSchema } from '../openapi/json-schema.js'
import {
  honoPath,
  type LimitClass,
  type RegisteredRoute,
  type RouteRegistry,
  type RouteSpec,
} from '../openapi/registry.js'
import type { Authenticator, GatewayEnv, Principal } from '../types.js'
import { hasBody, readBodyBytes } from './body.js'
import { type BodyFormat, bodyFormat } from './media.js'
import { readQuery } from './query.js'
import type { ConcurrencyLimiter, TokenBucket } from './rate-limiter.js'

/** Shared state of the request pipeline: the registry, limits and limiters. */
export interface RouteRuntime {
  readonly registry: RouteRegistry
  readonly limits: GatewayLimits
  readonly authenticate: Authenticator
  readonly limiters: Readonly<Partial<Record<LimitClass, ConcurrencyLimiter>>>
  readonly writeRate: { readonly requests: TokenBucket; readonly bytes: TokenBucket } | null
}

export interface RouteInput {
  readonly c: Context<GatewayEnv>
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, unknown>>
  /**
   * The validated JSON body (undefined for Arrow bodies and bodiless routes); with
   * `body.deferJson` parsed when first read, throwing the body's error.
   */
  readonly body: unknown
  readonly format: BodyFormat | undefined
  /** The raw body bytes (Arrow streams, Idempotency-Key fingerprints). */
  readonly bytes: Uint8Array
  readonly ctx: BackendContext
}

export interface RouteOutput {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export type RouteHandler = (input: RouteInput) => Promise<RouteOutput>

const ANONYMOUS: Principal = { name: 'anonymous', via: 'trust' }

/** A Hono sub-app whose routes are registered (spec and all) in the route registry. */
export class RouteGroup {
  readonly app = new Hono<GatewayEnv>()

  constructor(
    private readonly runtime: RouteRuntime,
    readonly base: string,
  ) {}

  add(spec: RouteSpec, handler: RouteHandler): void {
    const route = this.runtime.registry.add(spec)
    this.app.on(spec.method.toUpperCase(), honoPath(spec.path, this.base), c =>
      runRoute(this.runtime, route, handler, c),
    )
  }
}

async function runRoute(
  rt: RouteRuntime,
  route: RegisteredRoute,
  handler: RouteHandler,
  c: Context<GatewayEnv>,
) {
  const principal = route.authenticated === false ? ANONYMOUS : rt.authenticate(c)
  c.set('principal', principal)
  const query = readQuery(route, c.req.url, rt.registry.resolve)
  const release = acquire(rt, route.limitClass ?? 'none')
  try {
    const { format, bytes, body, parseLater } = await readRequestBody(rt, route, c)
    const ctx: BackendContext = { signal: c.get('signal'), principal }
    const params = c.req.param() as Record<string, string>
    const out = await handler(
      parseLater === undefined
        ? { c, params, query, body, format, bytes, ctx }
        : {
            c,
            params,
            query,
            get body() {
              return parseLater()
            },
            format,
            bytes,
            ctx,
          },
    )
    const headers = out.headers as Record<string, string> | undefined
    // biome-ignore lint/suspicious/noExplicitAny: Hono types statuses as a literal union
    if (out.status === 204) return c.body(null, 204 as any, headers)
    // biome-ignore lint/suspicious/noExplicitAny: Hono types statuses as a literal union
    return c.json(out.body as any, out.status as any, headers)
  } finally {
    release()
  }
}

function acquire(rt: RouteRuntime, limitClass: LimitClass): () => void {
  const limiter = rt.limiters[limitClass]
  if (limiter !== undefined && !limiter.tryAcquire()) {
    throw new GatewayError(
      'resource_exhausted',
      `Too many ${limitClass} requests in flight (limit ${limiter.max}).`,
    )
  }
  if (limitClass === 'write' && rt.writeRate !== null) {
    const waitSec = rt.writeRate.requests.tryTake(1)
    if (waitSec > 0) {
      limiter?.release()
      throw new GatewayError('resource_exhausted', 'The write request rate limit is reached.', {
        retryAfterSec: waitSec,
      })
    }
  }
  return () => limiter?.release()
}

interface RequestBody {
  readonly format: BodyFormat | undefined
  readonly bytes: Uint8Array
  /** The parsed and checked JSON body (undefined for Arrow bodies and deferred ones). */
  readonly body: unknown
  /** For `body.deferJson`: parses and checks the JSON body on its first call. */
  readonly parseLater?: () => unknown
}

async function readRequestBody(
  rt: RouteRuntime,
  route: RegisteredRoute,
  c: Context<GatewayEnv>,
): Promise<RequestBody> {
  if (route.body === undefined) {
    if (await hasBody(c.req.raw))
      throw invalidArgument(`${route.method.toUpperCase()} ${route.path} takes no request body.`)
    return { format: undefined, bytes: new Uint8Array(0), body: undefined }
  }
  const format = bodyFormat(c.req.header('content-type'), route.body.arrow === true)
  const bytes = await readBodyBytes(c.req.raw, rt.limits.maxRequestBytes)
  if (route.limitClass === 'write' && rt.writeRate !== null) {
    const waitSec = rt.writeRate.bytes.tryTake(bytes.byteLength)
    if (waitSec > 0) {
      throw new GatewayError('resource_exhausted', 'The write byte rate limit is reached.', {
        retryAfterSec: waitSec,
      })
    }
  }
  if (format === 'arrow') {
    if (bytes.byteLength === 0)
      throw invalidArgument('The request body is empty; an Arrow IPC stream is required.')
    return { format, bytes, body: undefined }
  }
  const schema = route.body.schema
  if (route.body.deferJson !== true) return { format, bytes, body: parseValidJson(rt, schema, bytes) }
  let parsed: { value: unknown } | undefined
  const parseLater = (): unknown => {
    // A body that fails is parsed again (and fails again) on the next read.
    if (parsed === undefined) parsed = { value: parseValidJson(rt, schema, bytes) }
    return parsed.value
  }
  return { format, bytes, body: undefined, parseLater }
}

/** The JSON body, parsed strictly and checked against the route's body schema. */
function parseValidJson(rt: RouteRuntime, schema: JsonSchema, bytes: Uint8Array): unknown {
  const body = parseJsonBody(bytes, rt.limits.maxJsonDepth)
  const problem = validateSchema(schema, body, '', rt.registry.resolve)
  if (problem !== undefined)
    throw invalidArgument(problem.startsWith(': ') ? `request body${problem}` : problem)
  return body
}
