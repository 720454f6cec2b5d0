import { Decimal, type Row, type RowType, Timestamp } from '@sluice/core'
import { GatewayError } from '../errors/gateway-error.js'
import { parseJsonBody } from '../json/parse-json.js'
import { JsonRowReader, type JsonRowReaderOptions } from '../json/row-codec.js'
import { type JsonSchema, validateSchema } from '../openapi/json-schema.js'
import { tooManyRows } from '../routes/arrow-rows.js'

/** What a whole-row write reads: the body member and the reader options of its kind. */
export interface WriteKindSpec {
  readonly member: 'rows' | 'keys'
  readonly options: JsonRowReaderOptions
}

export type BodyOutcome = { readonly rows: Row[] } | { readonly error: GatewayError }

function bodySchema(member: string): JsonSchema {
  const rows: JsonSchema = { type: 'array', minItems: 1, items: { type: 'object' } }
  return { type: 'object', required: [member], additionalProperties: false, properties: { [member]: rows } }
}

/**
 * The general path of the JSON write routes, step by step and with their messages: strict parse,
 * the body schema (`{"<member>": [objects]}`), the row limit, then JsonRowReader over every row.
 * The reference the fast body reader is compared with.
 */
export function generalBodyRows(
  rowType: RowType,
  kind: WriteKindSpec,
  bytes: Uint8Array,
  maxRows: number,
  maxDepth: number,
): BodyOutcome {
  try {
    const body = parseJsonBody(bytes, maxDepth) as Record<string, unknown[]>
    const problem = validateSchema(bodySchema(kind.member), body, '', () => ({}))
    if (problem !== undefined) {
      throw new GatewayError(
        'invalid_argument',
        problem.startsWith(': ') ? `request body${problem}` : problem,
      )
    }
    const items = body[kind.member]
    if (items.length > maxRows) throw tooManyRows(items.length, maxRows)
    return { rows: new JsonRowReader(rowType, kind.options).readAll(items, kind.member) }
  } catch (e) {
    if (e instanceof GatewayError) return { error: e }
    throw e
  }
}

/** A value as text that tells apart everything a row may hold (-0, NaN, bigint, value classes). */
export function canonicalValue(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'number') return Object.is(v, -0) ? 'num:-0' : `num:${v}`
  if (typeof v === 'bigint') return `big:${v}`
  if (typeof v === 'string') return `str:${JSON.stringify(v)}`
  if (typeof v === 'boolean') return `bool:${v}`
  if (v instanceof Decimal) return `dec:${v.unscaled}e-${v.scale}`
  if (v instanceof Timestamp) return `ts:${v.millis}+${v.nanoOfMillis}`
  if (v instanceof Uint8Array) return `bin:${Buffer.from(v).toString('hex')}`
  if (v instanceof Map) {
    return `map:{${[...v].map(([k, x]) => `${canonicalValue(k)}=${canonicalValue(x)}`).join(',')}}`
  }
  if (Array.isArray(v)) return `[${v.map(canonicalValue).join(',')}]`
  throw new Error(`unexpected value ${String(v)}`)
}
