import { RouteGroup } from '../http/pipeline.js'
import { JsonRowWriter } from '../json/row-codec.js'
import { typedRowSchema } from '../openapi/typed-values.js'
import { loadTable, type RouteDeps, TABLE_PARAMS } from './route-deps.js'
import { projectedRowType, projectionOf } from './scan.js'

/** `GET …/union-read`: the lake snapshot plus the log after it (Fluss's union read), bounded. */
export function unionReadRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/union-read',
      operationId: 'unionReadTable',
      summary:
        'The rows of the lake snapshot plus the log after it (primary-key tables merged by key), up to a limit.',
      tag: 'reads',
      pathParams: TABLE_PARAMS,
      query: {
        limit: { description: 'Most rows to return.', schema: { type: 'integer', minimum: 1 } },
        columns: {
          description: 'Columns to return (comma-separated); default all.',
          schema: { type: 'array', minItems: 1, items: { type: 'string' } },
        },
      },
      responses: {
        200: {
          description: 'Rows, whether more exist than were returned, and the lake snapshot read.',
          schema: deps.runtime.registry.schema('UnionRead', {
            type: 'object',
            required: ['rows', 'truncated', 'lake_snapshot_id'],
            additionalProperties: false,
            properties: {
              rows: { type: 'array', items: typedRowSchema(deps.runtime.registry) },
              truncated: { type: 'boolean' },
              lake_snapshot_id: {
                anyOf: [{ type: 'integer' }, { type: 'null' }],
                description: 'null while nothing is tiered (the rows are the log alone).',
              },
            },
          }),
        },
      },
      errors: [404, 501],
      limitClass: 'lookup',
    },
    async ({ params, query, ctx }) => {
      const table = await loadTable(deps, ctx, params)
      const projection = projectionOf(table.rowType, query.columns as string[] | undefined)
      const limits = deps.limits
      const result = await deps.backend.unionRead(ctx, table, {
        maxRows: Math.min(
          (query.limit as number | undefined) ?? limits.unionReadMaxRows,
          limits.unionReadMaxRows,
        ),
        maxPendingKeys: limits.unionReadMaxPendingKeys,
        timeoutMs: limits.requestTimeoutMs,
      })
      const writer = new JsonRowWriter(projectedRowType(table.rowType, projection))
      const rows = result.rows.map(row =>
        writer.write(projection === undefined ? row : projection.map(i => row[i])),
      )
      return {
        status: 200,
        body: { rows, truncated: result.truncated, lake_snapshot_id: result.lakeSnapshotId ?? null },
      }
    },
  )
  return group
}
