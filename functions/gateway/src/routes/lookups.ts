import type { Row } from '@sluice/core'
import type { TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder } from '@sluice/core/row'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import { RouteGroup, type RouteInput, type RouteOutput } from '../http/pipeline.js'
import { JsonRowReader, JsonRowWriter } from '../json/row-codec.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { typedRowSchema } from '../openapi/typed-values.js'
import { serveRead } from './kept-table.js'
import { type RouteDeps, TABLE_PARAMS } from './route-deps.js'

const OBJECTS = { type: 'array', minItems: 1, items: { type: 'object' } } as const

function requirePrimaryKey(table: TableInfo): void {
  if (!table.hasPrimaryKey) {
    throw new GatewayError(
      'failed_precondition',
      `Table ${table.tablePath.databaseName}.${table.tablePath.tableName} has no primary key to look up by.`,
    )
  }
}

function checkCount(count: number, max: number, what: string, key: string): void {
  if (count > max)
    throw new GatewayError(
      'limit_exceeded',
      `The request has ${count} ${what}; at most ${max} are allowed (${key}).`,
    )
}

/** What reading and answering lookups of one table needs, compiled once per table info and key columns. */
interface LookupCodec {
  readonly keys: JsonRowReader
  readonly encoder: CompactedKeyEncoder
  readonly rows: JsonRowWriter
}

/** Key column sets kept per table (prefix lookups may name several); the oldest is dropped first. */
const MAX_CODECS_PER_TABLE = 16

/** Codecs by table info (kept infos are shared by requests) and key columns. */
const CODECS = new WeakMap<TableInfo, Map<string, LookupCodec>>()

function codecOf(table: TableInfo, columns: readonly string[]): LookupCodec {
  let byColumns = CODECS.get(table)
  if (byColumns === undefined) {
    byColumns = new Map()
    CODECS.set(table, byColumns)
  }
  const key = columns.join('\u0000')
  let codec = byColumns.get(key)
  if (codec === undefined) {
    codec = {
      keys: new JsonRowReader(table.rowType, { allowed: columns, required: columns }),
      encoder: CompactedKeyEncoder.of(table.rowType, columns),
      rows: new JsonRowWriter(table.rowType),
    }
    if (byColumns.size >= MAX_CODECS_PER_TABLE) byColumns.delete(byColumns.keys().next().value as string)
    byColumns.set(key, codec)
  }
  return codec
}

/** Converts key objects and checks each encoded key's size. */
function keyRows(deps: RouteDeps, codec: LookupCodec, items: readonly unknown[], member: string): Row[] {
  const rows = codec.keys.readAll(items, member)
  const encoder = codec.encoder
  rows.forEach((row, i) => {
    const bytes = encoder.encodeKeyView(row).length
    if (bytes > deps.limits.lookupMaxKeyBytes) {
      throw new GatewayError(
        'limit_exceeded',
        `${member}[${i}]: the key is ${bytes} bytes; at most ${deps.limits.lookupMaxKeyBytes} (gateway.rest.lookup.max-key-bytes).`,
      )
    }
  })
  return rows
}

/** Point lookups and prefix lookups on primary-key tables. */
export function lookupRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const row = typedRowSchema(deps.runtime.registry)
  addLookup(group, deps, row)
  addPrefixLookup(group, deps, row)
  return group
}

function addLookup(group: RouteGroup, deps: RouteDeps, row: JsonSchema): void {
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables/{table}/lookup',
      operationId: 'lookupRows',
      summary: 'Look up rows by primary key (a batch of keys).',
      tag: 'reads',
      pathParams: TABLE_PARAMS,
      body: {
        description: 'Primary keys; partitioned tables include the partition columns.',
        schema: deps.runtime.registry.schema('LookupRequest', {
          type: 'object',
          required: ['keys'],
          additionalProperties: false,
          properties: { keys: OBJECTS },
        }),
      },
      responses: {
        200: {
          description: 'One entry per key, in key order; null when absent.',
          schema: {
            type: 'object',
            required: ['rows'],
            additionalProperties: false,
            properties: { rows: { type: 'array', items: { anyOf: [row, { type: 'null' }] } } },
          },
        },
      },
      errors: [404, 409, 413, 501],
      limitClass: 'lookup',
    },
    input => serveRead(deps, input, table => lookup(deps, input, table)),
  )
}

function prefixLookupSchemas(
  deps: RouteDeps,
  row: JsonSchema,
): { request: JsonSchema; response: JsonSchema } {
  const result: JsonSchema = {
    type: 'object',
    required: ['rows', 'truncated'],
    additionalProperties: false,
    properties: { rows: { type: 'array', items: row }, truncated: { type: 'boolean' } },
  }
  const request = deps.runtime.registry.schema('PrefixLookupRequest', {
    type: 'object',
    required: ['columns', 'prefixes'],
    additionalProperties: false,
    properties: {
      columns: { type: 'array', minItems: 1, items: { type: 'string' } },
      prefixes: OBJECTS,
      limit: {
        type: 'integer',
        minimum: 1,
        description: 'Rows per prefix (at most gateway.rest.prefix-lookup.max-rows-per-prefix).',
      },
    },
  })
  const response: JsonSchema = {
    type: 'object',
    required: ['results'],
    additionalProperties: false,
    properties: { results: { type: 'array', items: result } },
  }
  return { request, response }
}

function addPrefixLookup(group: RouteGroup, deps: RouteDeps, row: JsonSchema): void {
  const schemas = prefixLookupSchemas(deps, row)
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables/{table}/prefix-lookup',
      operationId: 'prefixLookupRows',
      summary: 'Look up the rows sharing a key prefix (bucket key plus partition columns).',
      tag: 'reads',
      pathParams: TABLE_PARAMS,
      body: {
        description: 'The lookup columns and one object of their values per prefix.',
        schema: schemas.request,
      },
      responses: {
        200: { description: 'One result per prefix, in request order.', schema: schemas.response },
      },
      errors: [404, 409, 413, 501],
      limitClass: 'prefix-lookup',
    },
    input => serveRead(deps, input, table => prefixLookup(deps, input, table)),
  )
}

async function lookup(deps: RouteDeps, { body, ctx }: RouteInput, table: TableInfo): Promise<RouteOutput> {
  requirePrimaryKey(table)
  const items = (body as { keys: unknown[] }).keys
  checkCount(items.length, deps.limits.lookupMaxKeys, 'keys', 'gateway.rest.lookup.max-keys')
  const codec = codecOf(table, table.primaryKeys)
  const keys = keyRows(deps, codec, items, 'keys')
  const found = await deps.backend.lookup(ctx, table, keys)
  const writer = codec.rows
  return { status: 200, body: { rows: found.map(f => (f === null ? null : writer.write(f))) } }
}

async function prefixLookup(
  deps: RouteDeps,
  { body, ctx }: RouteInput,
  table: TableInfo,
): Promise<RouteOutput> {
  const b = body as { columns: string[]; prefixes: unknown[]; limit?: number }
  requirePrimaryKey(table)
  for (const c of b.columns) {
    if (!table.primaryKeys.includes(c)) throw invalidArgument(`columns: '${c}' is not a primary-key column`)
  }
  const limits = deps.limits
  checkCount(
    b.prefixes.length,
    limits.prefixLookupMaxPrefixes,
    'prefixes',
    'gateway.rest.prefix-lookup.max-prefixes',
  )
  const max = limits.prefixLookupMaxRowsPerPrefix
  if (b.limit !== undefined) {
    checkCount(b.limit, max, 'rows per prefix', 'gateway.rest.prefix-lookup.max-rows-per-prefix')
  }
  const codec = codecOf(table, b.columns)
  const prefixes = keyRows(deps, codec, b.prefixes, 'prefixes')
  const results = await deps.backend.prefixLookup(ctx, table, b.columns, prefixes, b.limit ?? max)
  const writer = codec.rows
  const out = results.map(res => ({ rows: res.rows.map(x => writer.write(x)), truncated: res.truncated }))
  return { status: 200, body: { results: out } }
}
