import { FlussError } from '@sluice/core/errors'
import { partitionSpecFromName, type TableInfo } from '@sluice/core/metadata'
import type { PartitionInfo, PartitionSpecValues } from '../backend/gateway-backend.js'
import { RouteGroup } from '../http/pipeline.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { loadTable, type RouteDeps, STRING_MAP, TABLE_PARAMS } from './route-deps.js'

function partitionJson(p: PartitionInfo): Record<string, unknown> {
  return { name: p.partitionName, id: p.partitionId, spec: { ...p.spec } }
}

function requirePartitioned(table: TableInfo): void {
  if (!table.isPartitioned) {
    throw new FlussError(
      'TABLE_NOT_PARTITIONED_EXCEPTION',
      `Table ${table.tablePath.databaseName}.${table.tablePath.tableName} is not partitioned.`,
    )
  }
}

/** The partition spec named by a partition name (`v1$v2`, values in partition-key order). */
export function specOfName(table: TableInfo, name: string): PartitionSpecValues {
  requirePartitioned(table)
  const spec = partitionSpecFromName(table.partitionKeys, name)
  return Object.fromEntries(spec.partitionKeys.map((k, i) => [k, spec.partitionValues[i]]))
}

/** Partitions of a partitioned table: list, create, drop. */
export function partitionRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const r = deps.runtime.registry
  const partition = r.schema('Partition', {
    type: 'object',
    required: ['name', 'id', 'spec'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', description: "Partition values joined by '$' in partition-key order." },
      id: { type: 'integer' },
      spec: STRING_MAP,
    },
  })
  addList(group, deps, partition)
  addCreate(group, deps, partition)
  addDrop(group, deps)
  return group
}

function addList(group: RouteGroup, deps: RouteDeps, partition: JsonSchema): void {
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/partitions',
      operationId: 'listPartitions',
      summary: 'List the partitions of a partitioned table.',
      tag: 'partitions',
      pathParams: TABLE_PARAMS,
      responses: {
        200: {
          description: 'Partitions.',
          schema: {
            type: 'object',
            required: ['partitions'],
            additionalProperties: false,
            properties: { partitions: { type: 'array', items: partition } },
          },
        },
      },
      errors: [404],
    },
    async ({ params, ctx }) => {
      const table = await loadTable(deps, ctx, params)
      requirePartitioned(table)
      const partitions = await deps.backend.listPartitions(ctx, table.tablePath)
      return { status: 200, body: { partitions: partitions.map(partitionJson) } }
    },
  )
}

function addCreate(group: RouteGroup, deps: RouteDeps, partition: JsonSchema): void {
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables/{table}/partitions',
      operationId: 'createPartition',
      summary: 'Create a partition.',
      tag: 'partitions',
      pathParams: TABLE_PARAMS,
      body: {
        description: 'The partition: a value for every partition key.',
        schema: deps.runtime.registry.schema('CreatePartitionRequest', {
          type: 'object',
          required: ['spec'],
          additionalProperties: false,
          properties: { spec: STRING_MAP, if_not_exists: { type: 'boolean' } },
        }),
      },
      responses: { 201: { description: 'Created.', schema: partition } },
      errors: [404, 409],
    },
    async ({ params, body, ctx }) => {
      const b = body as { spec: Record<string, string>; if_not_exists?: boolean }
      const table = await loadTable(deps, ctx, params)
      requirePartitioned(table)
      await deps.backend.createPartition(ctx, table.tablePath, b.spec, b.if_not_exists === true)
      const name = table.partitionKeys.map(k => b.spec[k]).join('$')
      const created = (await deps.backend.listPartitions(ctx, table.tablePath)).find(
        p => p.partitionName === name,
      )
      if (created === undefined)
        throw new FlussError('PARTITION_NOT_EXISTS', `Partition ${name} was not found after it was created.`)
      return { status: 201, body: partitionJson(created) }
    },
  )
}

function addDrop(group: RouteGroup, deps: RouteDeps): void {
  group.add(
    {
      method: 'delete',
      path: '/v1/databases/{database}/tables/{table}/partitions/{partition}',
      operationId: 'dropPartition',
      summary: 'Drop a partition.',
      tag: 'partitions',
      pathParams: {
        ...TABLE_PARAMS,
        partition: {
          description: "Partition name: values joined by '$'.",
          schema: { type: 'string', minLength: 1 },
        },
      },
      query: {
        if_exists: { description: 'Succeed when the partition does not exist.', schema: { type: 'boolean' } },
      },
      responses: { 204: { description: 'Dropped.' } },
      errors: [404],
    },
    async ({ params, query, ctx }) => {
      const table = await loadTable(deps, ctx, params)
      await deps.backend.dropPartition(
        ctx,
        table.tablePath,
        specOfName(table, params.partition),
        query.if_exists === true,
      )
      return { status: 204, body: null }
    },
  )
}
