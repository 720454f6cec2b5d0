import type { JsonSchema } from './json-schema.js'

export type HttpMethod = 'get' | 'post' | 'put' | 'delete'

/** Which concurrency (and rate) limit a route counts against. */
export type LimitClass = 'write' | 'lookup' | 'prefix-lookup' | 'none'

export interface ParamSpec {
  readonly description: string
  readonly schema: JsonSchema
  readonly required?: boolean
}

export interface ResponseSpec {
  readonly description: string
  /** JSON body schema; undefined for responses without a body. */
  readonly schema?: JsonSchema
}

export interface BodySpec {
  readonly description: string
  readonly schema: JsonSchema
  /** Also accepts an Arrow IPC stream (`application/vnd.apache.arrow.stream`) instead of JSON. */
  readonly arrow?: boolean
  /**
   * The route may read a JSON body from `RouteInput.bytes` itself: the general parse and schema
   * check run only when `RouteInput.body` is first read. Such a route reads `body` before
   * reporting an error of its own, so that a bad body is answered as such first.
   */
  readonly deferJson?: boolean
}

/** Everything about a route the OpenAPI document and the request pipeline need. */
export interface RouteSpec {
  readonly method: HttpMethod
  /** Full path in OpenAPI template form: `/v1/databases/{database}`. */
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly tag: string
  readonly pathParams?: Readonly<Record<string, ParamSpec>>
  readonly query?: Readonly<Record<string, ParamSpec>>
  readonly body?: BodySpec
  /** Success responses by status. */
  readonly responses: Readonly<Record<number, ResponseSpec>>
  /** Error statuses specific to this route (the common ones are added for every route). */
  readonly errors?: readonly number[]
  readonly limitClass?: LimitClass
  /** Accepts an `Idempotency-Key` header. */
  readonly idempotent?: boolean
  /** Needs an authenticated principal (default true). */
  readonly authenticated?: boolean
  /** Served while starting or draining and outside the deadline (health and readiness). */
  readonly alwaysServed?: boolean
}

export interface RegisteredRoute extends RouteSpec {
  readonly pattern: RegExp
  readonly paramNames: readonly string[]
}

const SCHEMA_REF_PREFIX = '#/components/schemas/'

/**
 * The route registry: every mounted route registers its spec here, and both the OpenAPI document
 * and the 404/405 decision are derived from it, so the document cannot drift from the routes.
 */
export class RouteRegistry {
  readonly routes: RegisteredRoute[] = []
  readonly components = new Map<string, JsonSchema>()

  /** Registers a named schema and returns a `$ref` to it. */
  schema(name: string, schema: JsonSchema): JsonSchema {
    const existing = this.components.get(name)
    if (existing !== undefined && existing !== schema) throw new Error(`schema '${name}' registered twice`)
    this.components.set(name, schema)
    return { $ref: `${SCHEMA_REF_PREFIX}${name}` }
  }

  readonly resolve = (ref: string): JsonSchema => {
    const schema = ref.startsWith(SCHEMA_REF_PREFIX)
      ? this.components.get(ref.slice(SCHEMA_REF_PREFIX.length))
      : undefined
    if (schema === undefined) throw new Error(`unknown schema reference '${ref}'`)
    return schema
  }

  add(spec: RouteSpec): RegisteredRoute {
    if (this.routes.some(r => r.operationId === spec.operationId)) {
      throw new Error(`operation '${spec.operationId}' registered twice`)
    }
    const paramNames: string[] = []
    const source = spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
      paramNames.push(name)
      return '([^/]+)'
    })
    const route: RegisteredRoute = { ...spec, pattern: new RegExp(`^${source}$`), paramNames }
    this.routes.push(route)
    return route
  }

  /** Methods registered for a concrete path (for 405 and `Allow`). */
  methodsFor(path: string): HttpMethod[] {
    return this.routes.filter(r => r.pattern.test(path)).map(r => r.method)
  }
}

/** `/v1/databases/{database}` → Hono's `/v1/databases/:database`, relative to `base`. */
export function honoPath(path: string, base: string): string {
  if (!path.startsWith(base)) throw new Error(`route ${path} is outside ${base}`)
  const rel = path.slice(base.length).replace(/\{(\w+)\}/g, ':$1')
  return rel === '' ? '/' : rel
}
