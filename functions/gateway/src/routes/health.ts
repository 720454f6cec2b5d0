import { GatewayError } from '../errors/gateway-error.js'
import { RouteGroup } from '../http/pipeline.js'
import { buildOpenApiDocument, type SecuritySchemeSpec } from '../openapi/document.js'
import type { RouteDeps } from './route-deps.js'

/** `GET /health` (liveness) and `GET /ready` (readiness), served whatever the gateway's state. */
export function healthRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '')
  const health = deps.runtime.registry.schema('Health', {
    type: 'object',
    required: ['status', 'uptime_ms'],
    additionalProperties: false,
    properties: { status: { const: 'ok' }, uptime_ms: { type: 'integer', minimum: 0 } },
  })
  const ready = deps.runtime.registry.schema('Ready', {
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: { status: { const: 'ready' } },
  })
  group.add(
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness: 200 while the process answers, also while draining.',
      tag: 'health',
      responses: { 200: { description: 'Alive.', schema: health } },
      authenticated: false,
      alwaysServed: true,
    },
    async () => ({
      status: 200,
      body: {
        status: 'ok',
        uptime_ms: Math.max(0, Math.floor(deps.clock.nowMs() - deps.lifecycle.startedAtMs)),
      },
    }),
  )
  group.add(
    {
      method: 'get',
      path: '/ready',
      operationId: 'getReady',
      summary: 'Readiness: 503 with Retry-After while starting or draining.',
      tag: 'health',
      responses: { 200: { description: 'Ready to serve.', schema: ready } },
      errors: [503],
      authenticated: false,
      alwaysServed: true,
    },
    async () => {
      const state = deps.lifecycle.state
      if (state !== 'ready')
        throw new GatewayError('unavailable', `The gateway is ${state}.`, { retryAfterSec: 1 })
      return { status: 200, body: { status: 'ready' } }
    },
  )
  return group
}

/** `GET /v1/openapi.json`: the document built from the route registry (once, on first request). */
export function openApiRoute(
  deps: RouteDeps,
  version: string,
  security: SecuritySchemeSpec | undefined,
): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  let document: Record<string, unknown> | undefined
  group.add(
    {
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This API as an OpenAPI 3.1 document, generated from the mounted routes.',
      tag: 'meta',
      responses: {
        200: {
          description: 'The OpenAPI document.',
          schema: { type: 'object', required: ['openapi', 'paths'] },
        },
      },
      authenticated: false,
    },
    async () => {
      document ??= buildOpenApiDocument(deps.runtime.registry, version, security)
      return { status: 200, body: document }
    },
  )
  return group
}
