import { validateTableName } from '@sluice/core/metadata'
import { RouteGroup } from '../http/pipeline.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import {
  DATABASE_PARAM,
  databaseOf,
  loadTable,
  type RouteDeps,
  TABLE_PARAMS,
  tablePathOf,
} from './route-deps.js'
import { addAlterRoutes } from './table-alter.js'
import { schemaJson, tableJson, tableSchemaRefs } from './table-json.js'
import { type CreateTableBody, createTableRequestSchema, tableDescriptorOf } from './table-request.js'

/** Tables: list, create, get (info and schema), drop, alter, schema versions. */
export function tableRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const refs = tableSchemaRefs(deps.runtime.registry)
  addList(group, deps)
  addCreate(group, deps, refs.table)
  addGet(group, deps, refs)
  addDrop(group, deps)
  addAlterRoutes(group, deps, refs)
  return group
}

function addList(group: RouteGroup, deps: RouteDeps): void {
  const names = { type: 'array', items: { type: 'string' } } as const
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables',
      operationId: 'listTables',
      summary: 'List the tables of a database.',
      tag: 'tables',
      pathParams: DATABASE_PARAM,
      responses: {
        200: {
          description: 'Table names.',
          schema: {
            type: 'object',
            required: ['tables'],
            additionalProperties: false,
            properties: { tables: names },
          },
        },
      },
      errors: [404],
    },
    async ({ params, ctx }) => ({
      status: 200,
      body: { tables: await deps.backend.listTables(ctx, databaseOf(params)) },
    }),
  )
}

function addCreate(group: RouteGroup, deps: RouteDeps, table: JsonSchema): void {
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables',
      operationId: 'createTable',
      summary: 'Create a table.',
      description: 'Columns take Fluss types in compact text ("DECIMAL(10, 2) NOT NULL") or Fluss JSON form.',
      tag: 'tables',
      pathParams: DATABASE_PARAM,
      body: { description: 'The table.', schema: createTableRequestSchema(deps.runtime.registry) },
      responses: { 201: { description: 'Created (or already there with if_not_exists).', schema: table } },
      errors: [404, 409],
    },
    async ({ params, body, ctx }) => {
      const b = body as CreateTableBody
      const databaseName = databaseOf(params)
      validateTableName(b.name)
      const path = { databaseName, tableName: b.name }
      try {
        await deps.backend.createTable(ctx, path, tableDescriptorOf(b), b.if_not_exists === true)
      } finally {
        deps.tableInfo.invalidate(path)
      }
      return { status: 201, body: tableJson(await deps.backend.getTableInfo(ctx, path)) }
    },
  )
}

function addGet(group: RouteGroup, deps: RouteDeps, refs: { table: JsonSchema; schema: JsonSchema }): void {
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}',
      operationId: 'getTable',
      summary: 'Get a table: ids, schema, distribution, partitioning, properties.',
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      responses: { 200: { description: 'The table.', schema: refs.table } },
      errors: [404],
    },
    async ({ params, ctx }) => ({ status: 200, body: tableJson(await loadTable(deps, ctx, params)) }),
  )
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/schema',
      operationId: 'getTableSchema',
      summary: 'Get the current schema of a table.',
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      responses: { 200: { description: 'The schema.', schema: refs.schema } },
      errors: [404],
    },
    async ({ params, ctx }) => ({ status: 200, body: schemaJson(await loadTable(deps, ctx, params)) }),
  )
}

function addDrop(group: RouteGroup, deps: RouteDeps): void {
  group.add(
    {
      method: 'delete',
      path: '/v1/databases/{database}/tables/{table}',
      operationId: 'dropTable',
      summary: 'Drop a table.',
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      query: {
        if_exists: { description: 'Succeed when the table does not exist.', schema: { type: 'boolean' } },
      },
      responses: { 204: { description: 'Dropped.' } },
      errors: [404],
    },
    async ({ params, query, ctx }) => {
      const path = tablePathOf(params)
      try {
        await deps.backend.dropTable(ctx, path, query.if_exists === true)
      } finally {
        deps.tableInfo.invalidate(path)
      }
      return { status: 204, body: null }
    },
  )
}
