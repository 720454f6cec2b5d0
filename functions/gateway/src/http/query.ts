import { invalidArgument } from '../errors/gateway-error.js'
import { type JsonSchema, type SchemaResolver, validateSchema } from '../openapi/json-schema.js'
import type { RegisteredRoute } from '../openapi/registry.js'

/**
 * Reads and validates a route's query string: unknown or repeated parameters are refused, and
 * values are converted by their schema (integers, booleans, comma-separated string lists) before
 * being validated against it. A route without query parameters refuses any query string.
 */
export function readQuery(
  route: RegisteredRoute,
  url: string,
  resolve: SchemaResolver,
): Record<string, unknown> {
  const q = url.indexOf('?')
  const search = q < 0 ? '' : url.slice(q + 1)
  const specs = route.query ?? {}
  if (search === '') return checkRequired(route, {})
  if (Object.keys(specs).length === 0) {
    throw invalidArgument(`${route.method.toUpperCase()} ${route.path} takes no query parameters.`)
  }
  const out: Record<string, unknown> = {}
  for (const [name, raw] of new URLSearchParams(search)) {
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined
    if (spec === undefined) {
      throw invalidArgument(
        `Unknown query parameter '${name}'; this endpoint takes ${Object.keys(specs).join(', ')}.`,
      )
    }
    if (Object.hasOwn(out, name)) throw invalidArgument(`Query parameter '${name}' is given more than once.`)
    const value = convert(spec.schema, raw, name)
    const problem = validateSchema(spec.schema, value, `query parameter '${name}'`, resolve)
    if (problem !== undefined) throw invalidArgument(problem)
    out[name] = value
  }
  return checkRequired(route, out)
}

function checkRequired(route: RegisteredRoute, out: Record<string, unknown>): Record<string, unknown> {
  for (const [name, spec] of Object.entries(route.query ?? {})) {
    if (spec.required === true && !Object.hasOwn(out, name))
      throw invalidArgument(`Query parameter '${name}' is required.`)
  }
  return out
}

function convert(schema: JsonSchema, raw: string, name: string): unknown {
  switch (schema.type) {
    case 'integer':
      if (!/^-?\d{1,16}$/.test(raw)) throw invalidArgument(`query parameter '${name}': must be an integer`)
      return Number(raw)
    case 'boolean':
      if (raw !== 'true' && raw !== 'false')
        throw invalidArgument(`query parameter '${name}': must be true or false`)
      return raw === 'true'
    case 'array':
      return raw === '' ? [] : raw.split(',')
    default:
      return raw
  }
}
