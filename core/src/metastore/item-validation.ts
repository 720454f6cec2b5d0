import { FlussError } from '../errors/index.js'
import {
  type AttributeCondition,
  type ItemValue,
  type JsonValue,
  QUERY_LIMIT_DEFAULT,
  QUERY_LIMIT_MAX,
  type QueryOptions,
  type WriteCondition,
} from './metastore.js'

/**
 * Input checks shared by every MetaStore backend, so that the in-memory twin refuses exactly what
 * DynamoDB would refuse (and a little more: values DynamoDB would silently round).
 */

/** Attribute names the store itself uses; value fields may not take them. */
export const RESERVED_FIELDS: ReadonlySet<string> = new Set(['pk', 'sk', 'version'])

/** DynamoDB key limits (bytes of UTF-8). */
export const PK_BYTES_MAX = 2048
export const SK_BYTES_MAX = 1024
/** Below DynamoDB's 400 KB item limit, with room for attribute names and type overhead. */
export const ITEM_BYTES_MAX = 350_000
/** DynamoDB's smallest non-zero number magnitude. */
export const NUMBER_MAGNITUDE_MIN = 1e-130
/** DynamoDB allows 32 levels of nested maps/lists. */
export const NESTING_DEPTH_MAX = 32

const OPS = new Set(['<', '<=', '=', '>=', '>', 'absent'])

function invalid(message: string): FlussError {
  return new FlussError('INVALID_REQUEST', message)
}

export function validateKey(pk: string, sk: string): void {
  if (typeof pk !== 'string' || pk.length === 0)
    throw invalid(`partition key must be a non-empty string, got ${JSON.stringify(pk)}`)
  if (typeof sk !== 'string' || sk.length === 0)
    throw invalid(`sort key must be a non-empty string, got ${JSON.stringify(sk)}`)
  const pkBytes = Buffer.byteLength(pk)
  const skBytes = Buffer.byteLength(sk)
  if (pkBytes > PK_BYTES_MAX)
    throw invalid(`partition key is ${pkBytes} bytes, at most ${PK_BYTES_MAX} allowed`)
  if (skBytes > SK_BYTES_MAX) throw invalid(`sort key is ${skBytes} bytes, at most ${SK_BYTES_MAX} allowed`)
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

function validateJson(v: unknown, path: string, depth: number): void {
  if (depth > NESTING_DEPTH_MAX) throw invalid(`${path} nests deeper than ${NESTING_DEPTH_MAX} levels`)
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalid(`${path} is ${v}; only finite numbers can be stored`)
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) {
      throw invalid(`${path} is ${v}, beyond 2^53; store exact 64-bit numbers as strings`)
    }
    if (v !== 0 && Math.abs(v) < NUMBER_MAGNITUDE_MIN)
      throw invalid(`${path} is ${v}, below DynamoDB's smallest magnitude 1e-130`)
    return
  }
  if (Array.isArray(v)) {
    for (const [i, e] of v.entries()) validateJson(e, `${path}[${i}]`, depth + 1)
    return
  }
  if (isPlainObject(v)) {
    for (const [k, e] of Object.entries(v)) validateJson(e, `${path}.${k}`, depth + 1)
    return
  }
  throw invalid(`${path} has type ${typeof v}; only JSON values can be stored`)
}

/** Checks a value to be written; throws INVALID_REQUEST naming the offending field. */
export function validateValue(value: ItemValue): void {
  if (!isPlainObject(value)) throw invalid(`item value must be a plain object, got ${describe(value)}`)
  for (const [field, v] of Object.entries(value)) {
    if (field.length === 0) throw invalid('item value has an empty field name')
    if (RESERVED_FIELDS.has(field)) throw invalid(`field name '${field}' is reserved by the metadata store`)
    validateJson(v, field, 1)
  }
  const bytes = Buffer.byteLength(JSON.stringify(value))
  if (bytes > ITEM_BYTES_MAX)
    throw invalid(`item value is ${bytes} bytes as JSON, at most ${ITEM_BYTES_MAX} allowed`)
}

function validateAttribute(c: AttributeCondition): void {
  if (typeof c.field !== 'string' || c.field.length === 0)
    throw invalid('condition field must be a non-empty string')
  if (RESERVED_FIELDS.has(c.field))
    throw invalid(`condition on reserved field '${c.field}'; use the version condition`)
  if (!OPS.has(c.op)) throw invalid(`condition op '${c.op}' on '${c.field}' is not one of < <= = >= > absent`)
  if (c.op === 'absent') {
    if (c.value !== undefined) throw invalid(`condition 'absent' on '${c.field}' takes no value`)
    return
  }
  const v = c.value
  const comparable = (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string'
  if (!comparable && !(typeof v === 'boolean' && c.op === '=')) {
    throw invalid(
      `condition '${c.field} ${c.op}' needs a finite number or a string${c.op === '=' ? ' or a boolean' : ''}, got ${describe(v)}`,
    )
  }
}

export function validateCondition(condition: WriteCondition): void {
  if (typeof condition !== 'object' || condition === null) throw invalid('a write condition is required')
  const v = condition.version
  if (v !== 'absent' && !(Number.isSafeInteger(v) && v >= 1)) {
    throw invalid(`condition version must be 'absent' or an integer >= 1, got ${describe(v)}`)
  }
  for (const a of condition.attributes ?? []) validateAttribute(a)
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined'
  if (typeof v === 'bigint') return `${v}n (bigint)`
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return typeof v
  }
}

export interface ResolvedQuery {
  readonly prefix: string
  readonly limit: number
  readonly reverse: boolean
}

export function validateQuery(pk: string, options: QueryOptions): ResolvedQuery {
  if (typeof pk !== 'string' || pk.length === 0)
    throw invalid(`partition key must be a non-empty string, got ${JSON.stringify(pk)}`)
  const limit = options.limit ?? QUERY_LIMIT_DEFAULT
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > QUERY_LIMIT_MAX) {
    throw invalid(`query limit must be an integer in [1, ${QUERY_LIMIT_MAX}], got ${describe(limit)}`)
  }
  const prefix = options.skPrefix ?? ''
  if (typeof prefix !== 'string') throw invalid(`sort key prefix must be a string, got ${describe(prefix)}`)
  return { prefix, limit, reverse: options.reverse === true }
}

/** The version a successful put produces. */
export function nextVersion(condition: WriteCondition): number {
  return condition.version === 'absent' ? 1 : condition.version + 1
}

/** A deep, frozen-free copy, so callers never share structure with stored state. */
export function copyValue<T extends JsonValue>(v: T): T {
  return structuredClone(v)
}
