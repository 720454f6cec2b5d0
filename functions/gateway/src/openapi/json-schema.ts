import { LongNumber } from '../json/long-number.js'

/**
 * The subset of JSON Schema (2020-12, as OpenAPI 3.1 uses it) the gateway emits, and a validator for
 * exactly that subset. Request bodies and query parameters are checked with the schemas that the
 * OpenAPI document publishes, and tests check responses the same way.
 */
export interface JsonSchema {
  readonly type?: JsonType | readonly JsonType[]
  readonly description?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
  readonly additionalProperties?: boolean | JsonSchema
  readonly items?: JsonSchema
  readonly minItems?: number
  readonly maxItems?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly enum?: readonly (string | number | boolean | null)[]
  readonly const?: string | number | boolean | null
  readonly oneOf?: readonly JsonSchema[]
  readonly anyOf?: readonly JsonSchema[]
  readonly $ref?: string
  readonly format?: string
  readonly examples?: readonly unknown[]
}

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null'

/** Resolves `#/components/schemas/<name>` references. */
export type SchemaResolver = (ref: string) => JsonSchema

/** Validates `value`; returns the first problem as `path: reason`, or undefined when valid. */
export function validateSchema(
  schema: JsonSchema,
  value: unknown,
  path: string,
  resolve: SchemaResolver,
): string | undefined {
  if (schema.$ref !== undefined) return validateSchema(resolve(schema.$ref), value, path, resolve)
  const typeProblem = checkType(schema, value, path)
  if (typeProblem !== undefined) return typeProblem
  if (schema.const !== undefined && value !== schema.const)
    return `${path}: must be ${JSON.stringify(schema.const)}`
  if (schema.enum !== undefined && !schema.enum.includes(value as string)) {
    return `${path}: must be one of ${schema.enum.map(e => JSON.stringify(e)).join(', ')}`
  }
  if (schema.oneOf !== undefined) return checkAlternatives(schema.oneOf, value, path, resolve, true)
  if (schema.anyOf !== undefined) return checkAlternatives(schema.anyOf, value, path, resolve, false)
  if (typeof value === 'string') return checkString(schema, value, path)
  if (typeof value === 'number') return checkNumber(schema, value, path)
  if (Array.isArray(value)) return checkArray(schema, value, path, resolve)
  if (typeof value === 'object' && value !== null && !(value instanceof LongNumber)) {
    return checkObject(schema, value as Record<string, unknown>, path, resolve)
  }
  return undefined
}

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (value instanceof LongNumber) return 'number'
  const t = typeof value
  if (t === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return t as JsonType
}

function checkType(schema: JsonSchema, value: unknown, path: string): string | undefined {
  if (schema.type === undefined) return undefined
  const allowed = typeof schema.type === 'string' ? [schema.type] : schema.type
  const actual = typeOf(value)
  if (allowed.includes(actual)) {
    if (actual === 'integer' && !Number.isSafeInteger(value)) return `${path}: must be an integer below 2^53`
    return undefined
  }
  if (actual === 'integer' && allowed.includes('number')) return undefined
  const wanted = allowed.length === 1 ? allowed[0] : allowed.join(' or ')
  const article = /^[aeiou]/.test(wanted) ? 'an' : 'a'
  return `${path}: must be ${article} ${wanted}, got ${actual === 'integer' ? 'number' : actual}`
}

function checkAlternatives(
  options: readonly JsonSchema[],
  value: unknown,
  path: string,
  resolve: SchemaResolver,
  exactlyOne: boolean,
): string | undefined {
  const problems = options.map(o => validateSchema(o, value, path, resolve))
  const passed = problems.filter(p => p === undefined).length
  if (passed === 0) return problems.find(p => p !== undefined)
  if (exactlyOne && passed > 1) return `${path}: matches more than one of the allowed forms`
  return undefined
}

function checkString(schema: JsonSchema, value: string, path: string): string | undefined {
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    return `${path}: must have at least ${schema.minLength} characters`
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    return `${path}: must have at most ${schema.maxLength} characters`
  }
  if (schema.pattern !== undefined && !compiled(schema.pattern).test(value)) {
    return `${path}: must match ${schema.pattern}`
  }
  return undefined
}

function checkNumber(schema: JsonSchema, value: number, path: string): string | undefined {
  if (schema.minimum !== undefined && value < schema.minimum)
    return `${path}: must be at least ${schema.minimum}`
  if (schema.maximum !== undefined && value > schema.maximum)
    return `${path}: must be at most ${schema.maximum}`
  return undefined
}

function checkArray(
  schema: JsonSchema,
  value: unknown[],
  path: string,
  resolve: SchemaResolver,
): string | undefined {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    return `${path}: must have at least ${schema.minItems} items`
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return `${path}: must have at most ${schema.maxItems} items`
  }
  if (schema.items === undefined) return undefined
  for (let i = 0; i < value.length; i++) {
    const problem = validateSchema(schema.items, value[i], `${path}[${i}]`, resolve)
    if (problem !== undefined) return problem
  }
  return undefined
}

function checkObject(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: string,
  resolve: SchemaResolver,
): string | undefined {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`)
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key)) return `${at(key)}: is required`
  }
  const properties = schema.properties ?? {}
  for (const [key, v] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : undefined
    if (sub !== undefined) {
      const problem = validateSchema(sub, v, at(key), resolve)
      if (problem !== undefined) return problem
    } else if (schema.additionalProperties === false) {
      return `${at(key)}: is not a known member`
    } else if (typeof schema.additionalProperties === 'object') {
      const problem = validateSchema(schema.additionalProperties, v, at(key), resolve)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

const PATTERNS = new Map<string, RegExp>()

function compiled(pattern: string): RegExp {
  let re = PATTERNS.get(pattern)
  if (re === undefined) {
    re = new RegExp(pattern, 'u')
    PATTERNS.set(pattern, re)
  }
  return re
}
