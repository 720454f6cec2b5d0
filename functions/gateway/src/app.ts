import {
  GATEWAY_METRICS_ENABLED,
  GATEWAY_SECURITY_AUTHENTICATION,
  GATEWAY_SECURITY_TRUSTED_HEADER_NAME,
} from '@sluice/core/config'
import { type Clock, SYSTEM_CLOCK } from '@sluice/core/util'
import { type Context, Hono, type Next } from 'hono'
import { renderError } from './errors/envelope.js'
import { GatewayError } from './errors/gateway-error.js'
import { configuredAuthenticator } from './http/auth.js'
import { MemoryIdempotencyStore } from './http/idempotency-store.js'
import { acceptsJson } from './http/media.js'
import { gatewayMetrics } from './http/metrics.js'
import type { RouteRuntime } from './http/pipeline.js'
import { ConcurrencyLimiter, TokenBucket } from './http/rate-limiter.js'
import { REQUEST_ID_HEADER, requestIdFor } from './http/request-id.js'
import { GatewayLifecycle } from './lifecycle.js'
import { type GatewayLimits, gatewayLimits } from './limits.js'
import type { SecuritySchemeSpec } from './openapi/document.js'
import { RouteRegistry } from './openapi/registry.js'
import { databaseRoutes } from './routes/databases.js'
import { healthRoutes, openApiRoute } from './routes/health.js'
import { lookupRoutes } from './routes/lookups.js'
import { partitionRoutes } from './routes/partitions.js'
import type { RouteDeps } from './routes/route-deps.js'
import { scanRoutes } from './routes/scan.js'
import { snapshotRoutes } from './routes/snapshot.js'
import { TableInfoCache } from './routes/table-info-cache.js'
import { tableRoutes } from './routes/tables.js'
import { unionReadRoutes } from './routes/union-read.js'
import { writeRoutes } from './routes/writes.js'
import { CONSOLE_LOGGER, type GatewayDeps, type GatewayEnv } from './types.js'

export const GATEWAY_API_VERSION = '1.0.0'

export interface GatewayApp extends Hono<GatewayEnv> {
  /** The registry the routes and the OpenAPI document come from. */
  readonly registry: RouteRegistry
  readonly lifecycle: GatewayLifecycle
}

/**
 * The HTTP gateway as a Hono app: request id, readiness, Accept and deadline handling for every
 * request, the route modules mounted under /v1, 404/405 from the route registry and one error
 * handler rendering the error envelope. Served by `handler.ts` (Lambda) and `server.ts` (Node).
 */
export function createApp(deps: GatewayDeps & { securityScheme?: SecuritySchemeSpec }): GatewayApp {
  const clock = deps.clock ?? SYSTEM_CLOCK
  const logger = deps.logger ?? CONSOLE_LOGGER
  const lifecycle = deps.lifecycle ?? new GatewayLifecycle(clock)
  const limits = gatewayLimits(deps.config, deps.limits)
  const runtime = createRuntime(deps, limits, clock)
  const routeDeps: RouteDeps = {
    runtime,
    backend: deps.backend,
    limits,
    clock,
    logger,
    lifecycle,
    idempotency:
      deps.idempotencyStore ??
      new MemoryIdempotencyStore(limits.idempotencyMaxEntries, limits.idempotencyTtlMs, clock),
    tableInfo: new TableInfoCache(limits.tableInfoCacheTtlMs, limits.tableInfoCacheMaxEntries, clock),
  }
  const registry = runtime.registry
  const app = new Hono<GatewayEnv>()
  if (deps.metrics !== undefined && deps.config.get(GATEWAY_METRICS_ENABLED))
    app.use('*', gatewayMetrics(deps.metrics))
  app.use('*', requestScope(routeDeps))
  app.route('/', healthRoutes(routeDeps).app)
  for (const group of [
    databaseRoutes,
    tableRoutes,
    partitionRoutes,
    writeRoutes,
    lookupRoutes,
    scanRoutes,
    snapshotRoutes,
    unionReadRoutes,
  ]) {
    app.route('/v1', group(routeDeps).app)
  }
  app.route(
    '/v1',
    openApiRoute(routeDeps, GATEWAY_API_VERSION, deps.securityScheme ?? securityScheme(deps)).app,
  )
  app.notFound(c => {
    const methods = registry.methodsFor(c.req.path)
    if (methods.length === 0)
      throw new GatewayError('not_found', `No route for ${c.req.method} ${c.req.path}.`)
    const allow = methods.map(m => m.toUpperCase()).join(', ')
    throw new GatewayError(
      'method_not_allowed',
      `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}.`,
      { headers: { allow } },
    )
  })
  app.onError((err, c) => {
    const requestId = c.get('requestId') ?? requestIdFor(undefined)
    const rendered = renderError(err, requestId)
    if (rendered.internal)
      logger.error('request failed', {
        request_id: requestId,
        path: c.req.path,
        error: String(err),
        stack: (err as Error).stack,
      })
    // biome-ignore lint/suspicious/noExplicitAny: Hono types statuses as a literal union
    return c.json(rendered.body, rendered.status as any, {
      ...rendered.headers,
      [REQUEST_ID_HEADER]: requestId,
    })
  })
  return Object.assign(app, { registry, lifecycle })
}

function createRuntime(deps: GatewayDeps, limits: GatewayLimits, clock: Clock): RouteRuntime {
  const rate = limits.rateLimit
  return {
    registry: new RouteRegistry(),
    limits,
    authenticate: deps.authenticate ?? configuredAuthenticator(deps.config),
    limiters: {
      write: new ConcurrencyLimiter(limits.writeConcurrency),
      lookup: new ConcurrencyLimiter(limits.lookupConcurrency),
      'prefix-lookup': new ConcurrencyLimiter(limits.prefixLookupConcurrency),
    },
    writeRate:
      rate === null
        ? null
        : {
            requests: new TokenBucket(rate.requestsPerSecond, clock),
            bytes: new TokenBucket(rate.bytesPerSecond, clock),
          },
  }
}

/** Request id, in-flight tracking, readiness, Accept and the per-request deadline. */
function requestScope(deps: RouteDeps) {
  const { registry } = deps.runtime
  return async (c: Context<GatewayEnv>, next: Next) => {
    const requestId = requestIdFor(c.req.header(REQUEST_ID_HEADER))
    c.set('requestId', requestId)
    deps.lifecycle.enter()
    try {
      if (!acceptsJson(c.req.header('accept'))) {
        throw new GatewayError(
          'not_acceptable',
          'Responses are application/json; the Accept header excludes it.',
        )
      }
      const always = registry.routes.some(r => r.alwaysServed === true && r.pattern.test(c.req.path))
      if (always) {
        c.set('signal', new AbortController().signal)
        await next()
      } else {
        if (deps.lifecycle.state !== 'ready') {
          throw new GatewayError('unavailable', `The gateway is ${deps.lifecycle.state}.`, {
            retryAfterSec: 1,
          })
        }
        await withDeadline(c, next, deps.limits.requestTimeoutMs)
      }
      c.res.headers.set(REQUEST_ID_HEADER, requestId)
    } finally {
      deps.lifecycle.leave()
    }
  }
}

async function withDeadline(c: Context<GatewayEnv>, next: Next, timeoutMs: number): Promise<void> {
  const controller = new AbortController()
  c.set('signal', controller.signal)
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(
        new GatewayError(
          'timeout',
          `The request did not finish within ${timeoutMs} ms (gateway.rest.write.request-timeout); a write may or may not have been applied.`,
        ),
      )
    }, timeoutMs)
  })
  try {
    await Promise.race([next(), deadline])
  } finally {
    clearTimeout(timer)
  }
}

function securityScheme(deps: GatewayDeps): SecuritySchemeSpec | undefined {
  switch (deps.config.get(GATEWAY_SECURITY_AUTHENTICATION)) {
    case 'token':
      return { name: 'bearerToken', scheme: { type: 'http', scheme: 'bearer' } }
    case 'password':
      return { name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' } }
    case 'trusted-header':
      return {
        name: 'trustedHeader',
        scheme: { type: 'apiKey', in: 'header', name: deps.config.get(GATEWAY_SECURITY_TRUSTED_HEADER_NAME) },
      }
    case 'trust':
      return undefined
  }
}
