import { ERRORS } from '@sluice/core/errors'
import { allErrorCodes, allErrorStatuses, GATEWAY_CODES } from '../errors/gateway-codes.js'
import type { JsonSchema } from './json-schema.js'
import type { ParamSpec, RegisteredRoute, RouteRegistry } from './registry.js'

/** An OpenAPI security scheme and the name it is published under. */
export interface SecuritySchemeSpec {
  readonly name: string
  readonly scheme: Readonly<Record<string, unknown>>
}

export const ERROR_ENVELOPE_SCHEMA = 'ErrorEnvelope'

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid argument: malformed body, query or value.',
  401: 'Unauthenticated.',
  403: 'Unauthorized.',
  404: 'Not found.',
  405: 'Method not allowed.',
  406: 'Not acceptable: the Accept header excludes application/json.',
  409: 'Conflict: already exists, not empty, or failed precondition.',
  413: 'Limit exceeded: body bytes, rows, keys or prefixes.',
  415: 'Unsupported media type.',
  416: 'Offset out of range.',
  429: 'Resource exhausted: concurrency or rate limit; see Retry-After.',
  500: 'Backend or internal failure.',
  501: 'Not supported yet.',
  503: 'Unavailable (starting, draining or cluster unavailable); see Retry-After.',
  504: 'The request deadline (gateway.rest.write.request-timeout) passed.',
  507: 'Storage full.',
}

/** The error envelope schema, its `code` enumerated from the error tables. */
export function errorEnvelopeSchema(): JsonSchema {
  const failedRow: JsonSchema = {
    type: 'object',
    required: ['index', 'code', 'message'],
    properties: {
      index: { type: 'integer', minimum: 0 },
      code: { type: 'string' },
      message: { type: 'string' },
    },
  }
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'request_id'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: allErrorCodes() },
          message: { type: 'string' },
          request_id: { type: 'string', description: 'The x-request-id of the request.' },
          acknowledged_rows: {
            type: 'array',
            items: { type: 'integer', minimum: 0 },
            description: 'Writes that failed part-way: indexes of the rows the cluster acknowledged.',
          },
          failed_rows: {
            type: 'array',
            items: failedRow,
            description: 'Writes that failed part-way: the other rows.',
          },
        },
      },
    },
  }
}

/** Statuses every route can answer with an error envelope, besides its own. */
function errorStatuses(route: RegisteredRoute): number[] {
  const out = new Set<number>([400, 406, 500, ...(route.errors ?? [])])
  if (route.alwaysServed !== true) for (const s of [503, 504]) out.add(s)
  if (route.authenticated !== false) out.add(401)
  if (route.body !== undefined) for (const s of [413, 415]) out.add(s)
  if (route.limitClass !== undefined && route.limitClass !== 'none') out.add(429)
  return [...out].sort((a, b) => a - b)
}

function parameter(
  name: string,
  where: 'path' | 'query' | 'header',
  spec: ParamSpec,
): Record<string, unknown> {
  return {
    name,
    in: where,
    required: where === 'path' || spec.required === true,
    description: spec.description,
    schema: spec.schema,
  }
}

function operation(
  route: RegisteredRoute,
  security: SecuritySchemeSpec | undefined,
): Record<string, unknown> {
  const envelope = { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` }
  const responses: Record<string, unknown> = {}
  for (const [status, r] of Object.entries(route.responses)) {
    responses[status] =
      r.schema === undefined
        ? { description: r.description }
        : { description: r.description, content: { 'application/json': { schema: r.schema } } }
  }
  for (const status of errorStatuses(route)) {
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? 'Error.',
      content: { 'application/json': { schema: envelope } },
    }
  }
  responses.default = {
    description: 'Any other error, in the error envelope (see x-error-codes).',
    content: { 'application/json': { schema: envelope } },
  }
  const parameters = [
    ...Object.entries(route.pathParams ?? {}).map(([n, p]) => parameter(n, 'path', p)),
    ...Object.entries(route.query ?? {}).map(([n, p]) => parameter(n, 'query', p)),
    parameter('x-request-id', 'header', {
      description: 'A UUID to use as the request id (echoed back).',
      schema: { type: 'string', format: 'uuid' },
    }),
    ...(route.idempotent === true
      ? [
          parameter('Idempotency-Key', 'header', {
            description: 'Makes a retry of this write return the first result instead of writing again.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          }),
        ]
      : []),
  ]
  const content: Record<string, unknown> = {}
  if (route.body !== undefined) {
    content['application/json'] = { schema: route.body.schema }
    if (route.body.arrow === true) {
      content['application/vnd.apache.arrow.stream'] = {
        schema: { type: 'string', contentMediaType: 'application/vnd.apache.arrow.stream' },
      }
    }
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [route.tag],
    parameters,
    ...(route.body === undefined
      ? {}
      : { requestBody: { required: true, description: route.body.description, content } }),
    responses,
    security: route.authenticated !== false && security !== undefined ? [{ [security.name]: [] }] : [],
  }
}

/** Builds the OpenAPI 3.1 document from the registered routes and schemas. */
export function buildOpenApiDocument(
  registry: RouteRegistry,
  version: string,
  security?: SecuritySchemeSpec,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of registry.routes) {
    paths[route.path] ??= {}
    paths[route.path][route.method] = operation(route, security)
  }
  const codes: Record<string, number[]> = {}
  const note = (code: string, status: number) => {
    codes[code] ??= []
    if (!codes[code].includes(status)) codes[code].push(status)
  }
  for (const [code, status] of Object.entries(GATEWAY_CODES)) note(code, status)
  for (const spec of Object.values(ERRORS)) if (spec.http >= 400) note(spec.gatewayCode, spec.http)
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sluice HTTP gateway',
      version,
      description:
        'Metadata, DDL, writes and reads of a Sluice (Apache Fluss-compatible) cluster over HTTP. Type mapping: docs/gateway.md.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(registry.routes.map(r => r.tag))].map(name => ({ name })),
    paths,
    components: {
      schemas: { ...Object.fromEntries(registry.components), [ERROR_ENVELOPE_SCHEMA]: errorEnvelopeSchema() },
      ...(security === undefined ? {} : { securitySchemes: { [security.name]: security.scheme } }),
    },
    'x-error-statuses': allErrorStatuses(),
    'x-error-codes': codes,
  }
}
