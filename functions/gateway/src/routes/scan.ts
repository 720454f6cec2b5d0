import type { RowType } from '@sluice/core'
import type { TableInfo } from '@sluice/core/metadata'
import type { BackendContext, BucketStart, ScanRecord, StartOffset } from '../backend/gateway-backend.js'
import { invalidArgument } from '../errors/gateway-error.js'
import { RouteGroup, type RouteInput, type RouteOutput } from '../http/pipeline.js'
import { JsonRowWriter } from '../json/row-codec.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { typedRowSchema } from '../openapi/typed-values.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import { loadTable, type RouteDeps, TABLE_PARAMS } from './route-deps.js'

interface ScanBody {
  readonly cursor?: string
  readonly offsets?: readonly { bucket: number; partition?: string; offset: StartOffset }[]
  readonly columns?: readonly string[]
  readonly limit?: number
  readonly max_wait_ms?: number
}

/** Column indexes of a projection (all columns when absent). */
export function projectionOf(rowType: RowType, columns: readonly string[] | undefined): number[] | undefined {
  if (columns === undefined) return undefined
  const seen = new Set<string>()
  return columns.map(name => {
    const i = rowType.fields.findIndex(f => f.name === name)
    if (i < 0) throw invalidArgument(`columns: no such column '${name}'`)
    if (seen.has(name)) throw invalidArgument(`columns: '${name}' is named twice`)
    seen.add(name)
    return i
  })
}

export function projectedRowType(rowType: RowType, projection: readonly number[] | undefined): RowType {
  return projection === undefined ? rowType : { ...rowType, fields: projection.map(i => rowType.fields[i]) }
}

/** Partition names ↔ ids of a partitioned table (empty maps for other tables). */
async function partitionNames(deps: RouteDeps, ctx: BackendContext, table: TableInfo) {
  const byName = new Map<string, number>()
  const byId = new Map<number, string>()
  if (table.isPartitioned) {
    for (const p of await deps.backend.listPartitions(ctx, table.tablePath)) {
      byName.set(p.partitionName, p.partitionId)
      byId.set(p.partitionId, p.partitionName)
    }
  }
  return { byName, byId }
}

function startsOf(table: TableInfo, b: ScanBody, byName: Map<string, number>): BucketStart[] {
  if (b.cursor !== undefined) {
    if (b.offsets !== undefined) throw invalidArgument("Give either 'cursor' or 'offsets', not both.")
    return decodeCursor(b.cursor, table.tableId)
  }
  if (b.offsets === undefined) {
    if (table.isPartitioned) throw invalidArgument("A partitioned table needs 'offsets' naming partitions.")
    return Array.from({ length: table.numBuckets }, (_, bucket) => ({ bucket, offset: 'earliest' as const }))
  }
  return b.offsets.map((o, i) => {
    if (o.bucket >= table.numBuckets)
      throw invalidArgument(`offsets[${i}].bucket: the table has ${table.numBuckets} buckets`)
    if (table.isPartitioned !== (o.partition !== undefined)) {
      throw invalidArgument(
        `offsets[${i}].partition: ${table.isPartitioned ? 'required for a partitioned table' : 'the table is not partitioned'}`,
      )
    }
    if (o.partition === undefined) return { bucket: o.bucket, offset: o.offset }
    const partitionId = byName.get(o.partition)
    if (partitionId === undefined)
      throw invalidArgument(`offsets[${i}].partition: no partition '${o.partition}'`)
    return { partitionId, bucket: o.bucket, offset: o.offset }
  })
}

/** Log reads from an offset per bucket, with a projection and a cursor for the next request. */
export function scanRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const r = deps.runtime.registry
  const offset = {
    oneOf: [
      { type: 'integer', minimum: 0 },
      { type: 'string', enum: ['earliest', 'latest'] },
    ],
  } as const
  const record = r.schema('LogRecord', {
    type: 'object',
    required: ['bucket', 'partition', 'offset', 'timestamp', 'change_type', 'row'],
    additionalProperties: false,
    properties: {
      bucket: { type: 'integer', minimum: 0 },
      partition: { type: ['string', 'null'] },
      offset: { type: 'integer', minimum: 0 },
      timestamp: { type: 'integer', description: 'Epoch milliseconds of the batch.' },
      change_type: {
        type: 'string',
        enum: ['append_only', 'insert', 'update_before', 'update_after', 'delete'],
      },
      row: typedRowSchema(r),
    },
  })
  addScan(group, deps, record, offset)
  return group
}

function scanRequestSchema(deps: RouteDeps, offset: JsonSchema): JsonSchema {
  const start: JsonSchema = {
    type: 'object',
    required: ['bucket', 'offset'],
    additionalProperties: false,
    properties: { bucket: { type: 'integer', minimum: 0 }, partition: { type: 'string' }, offset },
  }
  return deps.runtime.registry.schema('ScanRequest', {
    type: 'object',
    additionalProperties: false,
    properties: {
      cursor: { type: 'string', minLength: 1, maxLength: 1_000_000 },
      offsets: { type: 'array', minItems: 1, items: start },
      columns: { type: 'array', minItems: 1, items: { type: 'string' } },
      limit: { type: 'integer', minimum: 1 },
      max_wait_ms: { type: 'integer', minimum: 0 },
    },
  })
}

function addScan(group: RouteGroup, deps: RouteDeps, record: JsonSchema, offset: JsonSchema): void {
  const response: JsonSchema = {
    type: 'object',
    required: ['records', 'cursor', 'more'],
    additionalProperties: false,
    properties: {
      records: { type: 'array', items: record },
      cursor: { type: 'string' },
      more: {
        type: 'boolean',
        description:
          'True when records that were unread when the scan began are left: call again with the cursor.',
      },
    },
  }
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables/{table}/scan',
      operationId: 'scanLog',
      summary:
        'Read log records from an offset per bucket, the limit shared fairly over the buckets; pass the returned cursor to continue.',
      tag: 'reads',
      pathParams: TABLE_PARAMS,
      body: {
        description:
          "Where to start ('cursor' from a previous response, or 'offsets'; neither = every bucket from the earliest offset).",
        schema: scanRequestSchema(deps, offset),
      },
      responses: {
        200: {
          description:
            'Records (possibly none), the cursor to continue from, and whether more are available.',
          schema: response,
        },
      },
      errors: [404, 413, 416, 501],
      limitClass: 'lookup',
    },
    input => scan(deps, input),
  )
}

async function scan(deps: RouteDeps, { params, body, ctx }: RouteInput): Promise<RouteOutput> {
  const b = body as ScanBody
  const table = await loadTable(deps, ctx, params)
  const projection = projectionOf(table.rowType, b.columns)
  const { byName, byId } = await partitionNames(deps, ctx, table)
  const buckets = startsOf(table, b, byName)
  const maxRecords = Math.min(b.limit ?? deps.limits.scanMaxRecords, deps.limits.scanMaxRecords)
  const maxWaitMs = Math.min(b.max_wait_ms ?? 0, deps.limits.scanMaxWaitMs)
  const request = { buckets, ...(projection === undefined ? {} : { projection }), maxRecords, maxWaitMs }
  const result = await deps.backend.scan(ctx, table, request)
  const writer = new JsonRowWriter(projectedRowType(table.rowType, projection))
  const records = result.records.map((rec: ScanRecord) => ({
    bucket: rec.bucket,
    partition: rec.partitionId === undefined ? null : (byId.get(rec.partitionId) ?? String(rec.partitionId)),
    offset: rec.offset,
    timestamp: rec.timestampMs,
    change_type: rec.changeType,
    row: writer.write(rec.row),
  }))
  const cursor = encodeCursor(table.tableId, result.positions)
  return { status: 200, body: { records, cursor, more: result.more } }
}
