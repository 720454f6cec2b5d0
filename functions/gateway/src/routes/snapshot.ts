import type { TableInfo } from '@sluice/core/metadata'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import { RouteGroup } from '../http/pipeline.js'
import { JsonRowWriter } from '../json/row-codec.js'
import { typedRowSchema } from '../openapi/typed-values.js'
import { loadTable, type RouteDeps, TABLE_PARAMS } from './route-deps.js'
import { projectedRowType, projectionOf } from './scan.js'

async function partitionIdOf(
  deps: RouteDeps,
  table: TableInfo,
  name: string | undefined,
  ctx: Parameters<RouteDeps['backend']['listPartitions']>[0],
) {
  if (!table.isPartitioned) {
    if (name !== undefined) throw invalidArgument('partition: the table is not partitioned')
    return undefined
  }
  if (name === undefined) throw invalidArgument('partition: required for a partitioned table')
  const found = (await deps.backend.listPartitions(ctx, table.tablePath)).find(p => p.partitionName === name)
  if (found === undefined) throw invalidArgument(`partition: no partition '${name}'`)
  return found.partitionId
}

/** A bounded snapshot of a primary-key table, and the lake tiering status of a table. */
export function snapshotRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  addSnapshot(group, deps)
  addTiering(group, deps)
  return group
}

function addSnapshot(group: RouteGroup, deps: RouteDeps): void {
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/snapshot',
      operationId: 'snapshotTable',
      summary: 'The current rows of a primary-key table (one partition of a partitioned one), up to a limit.',
      tag: 'reads',
      pathParams: TABLE_PARAMS,
      query: {
        partition: {
          description: 'Partition name (partitioned tables).',
          schema: { type: 'string', minLength: 1 },
        },
        limit: { description: 'Most rows to return.', schema: { type: 'integer', minimum: 1 } },
        columns: {
          description: 'Columns to return (comma-separated); default all.',
          schema: { type: 'array', minItems: 1, items: { type: 'string' } },
        },
      },
      responses: {
        200: {
          description: 'Rows, and whether more exist than were returned.',
          schema: deps.runtime.registry.schema('Snapshot', {
            type: 'object',
            required: ['rows', 'truncated'],
            additionalProperties: false,
            properties: {
              rows: { type: 'array', items: typedRowSchema(deps.runtime.registry) },
              truncated: { type: 'boolean' },
            },
          }),
        },
      },
      errors: [404, 409, 501],
      limitClass: 'lookup',
    },
    async ({ params, query, ctx }) => {
      const table = await loadTable(deps, ctx, params)
      if (!table.hasPrimaryKey)
        throw new GatewayError(
          'failed_precondition',
          'Snapshots are of primary-key tables; scan the log of a log table.',
        )
      const projection = projectionOf(table.rowType, query.columns as string[] | undefined)
      const partitionId = await partitionIdOf(deps, table, query.partition as string | undefined, ctx)
      const maxRows = Math.min(
        (query.limit as number | undefined) ?? deps.limits.snapshotMaxRows,
        deps.limits.snapshotMaxRows,
      )
      const result = await deps.backend.snapshot(ctx, table, {
        ...(partitionId === undefined ? {} : { partitionId }),
        maxRows,
      })
      const writer = new JsonRowWriter(projectedRowType(table.rowType, projection))
      const rows = result.rows.map(row =>
        writer.write(projection === undefined ? row : projection.map(i => row[i])),
      )
      return { status: 200, body: { rows, truncated: result.truncated } }
    },
  )
}

function addTiering(group: RouteGroup, deps: RouteDeps): void {
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/tiering',
      operationId: 'getTieringStatus',
      summary: 'Lake tiering status of a table.',
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      responses: {
        200: {
          description: 'Tiering status.',
          schema: deps.runtime.registry.schema('TieringStatus', {
            type: 'object',
            required: ['lake_enabled'],
            additionalProperties: false,
            properties: {
              lake_enabled: { type: 'boolean' },
              lake_snapshot_id: { type: 'integer' },
              tiered_offsets: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['bucket', 'offset'],
                  properties: {
                    bucket: { type: 'integer' },
                    partition_id: { type: 'integer' },
                    offset: { type: 'integer' },
                  },
                },
              },
            },
          }),
        },
      },
      errors: [404, 501],
    },
    async ({ params, ctx }) => {
      const status = await deps.backend.tieringStatus(ctx, await loadTable(deps, ctx, params))
      return {
        status: 200,
        body: {
          lake_enabled: status.lakeEnabled,
          ...(status.lakeSnapshotId === undefined ? {} : { lake_snapshot_id: status.lakeSnapshotId }),
          ...(status.tieredOffsets === undefined
            ? {}
            : {
                tiered_offsets: status.tieredOffsets.map(o => ({
                  bucket: o.bucket,
                  ...(o.partitionId === undefined ? {} : { partition_id: o.partitionId }),
                  offset: o.offset,
                })),
              }),
        },
      }
    },
  )
}
