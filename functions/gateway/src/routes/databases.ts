import { type DatabaseInfo, databaseDescriptor, validateDatabaseName } from '@sluice/core/metadata'
import { RouteGroup } from '../http/pipeline.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { DATABASE_PARAM, databaseOf, NAME_SCHEMA, type RouteDeps, STRING_MAP } from './route-deps.js'

interface CreateDatabaseBody {
  readonly name: string
  readonly comment?: string
  readonly properties?: Record<string, string>
  readonly if_not_exists?: boolean
}

export function databaseJson(info: DatabaseInfo): Record<string, unknown> {
  return {
    name: info.databaseName,
    comment: info.descriptor.comment ?? null,
    properties: { ...info.descriptor.customProperties },
    created_time: info.createdTime,
    modified_time: info.modifiedTime,
  }
}

/** Databases: list, create, get, drop. */
export function databaseRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const database = deps.runtime.registry.schema('Database', {
    type: 'object',
    required: ['name', 'comment', 'properties', 'created_time', 'modified_time'],
    additionalProperties: false,
    properties: {
      name: NAME_SCHEMA,
      comment: { type: ['string', 'null'] },
      properties: STRING_MAP,
      created_time: { type: 'integer', description: 'Epoch milliseconds.' },
      modified_time: { type: 'integer', description: 'Epoch milliseconds.' },
    },
  })
  addList(group, deps)
  addCreate(group, deps, database)
  addGet(group, deps, database)
  addDrop(group, deps)
  return group
}

function addList(group: RouteGroup, deps: RouteDeps): void {
  const names = { type: 'array', items: { type: 'string' } } as const
  group.add(
    {
      method: 'get',
      path: '/v1/databases',
      operationId: 'listDatabases',
      summary: 'List databases.',
      tag: 'databases',
      responses: {
        200: {
          description: 'Database names.',
          schema: {
            type: 'object',
            required: ['databases'],
            additionalProperties: false,
            properties: { databases: names },
          },
        },
      },
    },
    async ({ ctx }) => ({ status: 200, body: { databases: await deps.backend.listDatabases(ctx) } }),
  )
}

function addCreate(group: RouteGroup, deps: RouteDeps, database: JsonSchema): void {
  const request = deps.runtime.registry.schema('CreateDatabaseRequest', {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: NAME_SCHEMA,
      comment: { type: 'string' },
      properties: STRING_MAP,
      if_not_exists: { type: 'boolean', description: 'Succeed when the database already exists.' },
    },
  })
  group.add(
    {
      method: 'post',
      path: '/v1/databases',
      operationId: 'createDatabase',
      summary: 'Create a database.',
      tag: 'databases',
      body: { description: 'The database.', schema: request },
      responses: { 201: { description: 'Created (or already there with if_not_exists).', schema: database } },
      errors: [409],
    },
    async ({ body, ctx }) => {
      const b = body as CreateDatabaseBody
      validateDatabaseName(b.name)
      const descriptor = databaseDescriptor(b.properties ?? {}, b.comment)
      await deps.backend.createDatabase(ctx, b.name, descriptor, b.if_not_exists === true)
      return { status: 201, body: databaseJson(await deps.backend.getDatabase(ctx, b.name)) }
    },
  )
}

function addGet(group: RouteGroup, deps: RouteDeps, database: JsonSchema): void {
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}',
      operationId: 'getDatabase',
      summary: 'Get a database.',
      tag: 'databases',
      pathParams: DATABASE_PARAM,
      responses: { 200: { description: 'The database.', schema: database } },
      errors: [404],
    },
    async ({ params, ctx }) => ({
      status: 200,
      body: databaseJson(await deps.backend.getDatabase(ctx, databaseOf(params))),
    }),
  )
}

function addDrop(group: RouteGroup, deps: RouteDeps): void {
  group.add(
    {
      method: 'delete',
      path: '/v1/databases/{database}',
      operationId: 'dropDatabase',
      summary: 'Drop a database.',
      tag: 'databases',
      pathParams: DATABASE_PARAM,
      query: {
        if_exists: { description: 'Succeed when the database does not exist.', schema: { type: 'boolean' } },
        cascade: {
          description: 'Also drop its tables (otherwise a non-empty database is refused with 409).',
          schema: { type: 'boolean' },
        },
      },
      responses: { 204: { description: 'Dropped.' } },
      errors: [404, 409],
    },
    async ({ params, query, ctx }) => {
      const database = databaseOf(params)
      try {
        await deps.backend.dropDatabase(ctx, database, query.if_exists === true, query.cascade === true)
      } finally {
        deps.tableInfo.invalidateDatabase(database)
      }
      return { status: 204, body: null }
    },
  )
}
