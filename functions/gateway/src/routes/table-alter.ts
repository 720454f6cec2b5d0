import type { TableChanges } from '@sluice/client'
import type { RouteGroup } from '../http/pipeline.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import type { RouteRegistry } from '../openapi/registry.js'
import { type RouteDeps, STRING_MAP, TABLE_PARAMS, tablePathOf } from './route-deps.js'
import { dataTypeSchema, schemaJson, tableJson } from './table-json.js'
import { columnType } from './table-request.js'

type TypeInput = string | Record<string, unknown>

export interface AlterTableBody {
  readonly set?: Readonly<Record<string, string>>
  readonly reset?: readonly string[]
  readonly add_columns?: readonly {
    name: string
    type: TypeInput
    comment?: string
    default_value?: string
  }[]
  readonly drop_columns?: readonly string[]
  readonly rename_columns?: readonly { name: string; new_name: string }[]
  readonly modify_columns?: readonly {
    name: string
    type?: TypeInput
    comment?: string | null
    default_value?: string | null
  }[]
  readonly if_exists?: boolean
}

/** The SDK's `TableChanges` of a request body (types parsed; the cluster checks the rest). */
export function tableChangesOf(b: AlterTableBody): TableChanges {
  return {
    ...(b.set === undefined ? {} : { set: b.set }),
    ...(b.reset === undefined ? {} : { reset: b.reset }),
    addColumns: (b.add_columns ?? []).map((c, i) => ({
      name: c.name,
      type: columnType(c.type, `add_columns[${i}].type`),
      ...(c.comment === undefined ? {} : { comment: c.comment }),
      ...(c.default_value === undefined ? {} : { defaultValue: c.default_value }),
    })),
    dropColumns: b.drop_columns ?? [],
    renameColumns: (b.rename_columns ?? []).map(c => ({ name: c.name, newName: c.new_name })),
    modifyColumns: (b.modify_columns ?? []).map((c, i) => ({
      name: c.name,
      ...(c.type === undefined ? {} : { type: columnType(c.type, `modify_columns[${i}].type`) }),
      ...(c.comment === undefined ? {} : { comment: c.comment }),
      ...(c.default_value === undefined ? {} : { defaultValue: c.default_value }),
    })),
  }
}

function alterTableRequestSchema(r: RouteRegistry): JsonSchema {
  const name = { type: 'string', minLength: 1 } as const
  const nullableText = { type: ['string', 'null'] } as const
  return r.schema('AlterTableRequest', {
    type: 'object',
    additionalProperties: false,
    description:
      'Table properties (set, reset) or columns (add, drop, rename, modify), not both in one request. Column changes apply in that order; each keeps column ids, so rows written before it are read by id. Unsafe changes are refused (400 invalid_argument) and nothing changes.',
    properties: {
      set: STRING_MAP,
      reset: { type: 'array', items: name },
      add_columns: {
        type: 'array',
        description: 'Nullable columns added at the end.',
        items: {
          type: 'object',
          required: ['name', 'type'],
          additionalProperties: false,
          properties: {
            name,
            type: dataTypeSchema(r),
            comment: { type: 'string' },
            default_value: { type: 'string' },
          },
        },
      },
      drop_columns: {
        type: 'array',
        description: 'Never a primary-key, partition-key or bucket-key column.',
        items: name,
      },
      rename_columns: {
        type: 'array',
        description: 'Never a key column.',
        items: {
          type: 'object',
          required: ['name', 'new_name'],
          additionalProperties: false,
          properties: { name, new_name: name },
        },
      },
      modify_columns: {
        type: 'array',
        description:
          'A widening type (INT to BIGINT, FLOAT to DOUBLE, DECIMAL precision up, CHAR/VARCHAR length up, NOT NULL to nullable) of a non-key column, its comment or its write default; null removes a comment or default.',
        items: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: { name, type: dataTypeSchema(r), comment: nullableText, default_value: nullableText },
        },
      },
      if_exists: { type: 'boolean', description: 'Succeed when the table does not exist.' },
    },
  })
}

/** ALTER TABLE and the table's schema versions. */
export function addAlterRoutes(
  group: RouteGroup,
  deps: RouteDeps,
  refs: { table: JsonSchema; schema: JsonSchema },
): void {
  const r = deps.runtime.registry
  group.add(
    {
      method: 'post',
      path: '/v1/databases/{database}/tables/{table}/alter',
      operationId: 'alterTable',
      summary: "Alter a table's properties or columns.",
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      body: { description: 'The changes.', schema: alterTableRequestSchema(r) },
      responses: {
        200: { description: 'The table after the change.', schema: refs.table },
        204: { description: 'The table does not exist (if_exists).' },
      },
      errors: [404],
    },
    async ({ params, body, ctx }) => {
      const b = body as AlterTableBody
      const path = tablePathOf(params)
      const changes = tableChangesOf(b)
      try {
        await deps.backend.alterTable(ctx, path, changes, b.if_exists === true)
      } finally {
        deps.tableInfo.invalidate(path)
      }
      try {
        return { status: 200, body: tableJson(await deps.backend.getTableInfo(ctx, path)) }
      } catch (e) {
        if (b.if_exists === true && (e as { errorName?: string }).errorName === 'TABLE_NOT_EXIST')
          return { status: 204, body: null }
        throw e
      }
    },
  )
  const version = r.schema('TableSchemaVersion', {
    type: 'object',
    required: ['schema_id', 'schema'],
    additionalProperties: false,
    properties: { schema_id: { type: 'integer', minimum: 1 }, schema: refs.schema },
  })
  group.add(
    {
      method: 'get',
      path: '/v1/databases/{database}/tables/{table}/schemas',
      operationId: 'listTableSchemas',
      summary: 'Every schema version of a table, oldest first.',
      tag: 'tables',
      pathParams: TABLE_PARAMS,
      responses: {
        200: {
          description: 'The schema versions.',
          schema: {
            type: 'object',
            required: ['schemas'],
            additionalProperties: false,
            properties: { schemas: { type: 'array', items: version } },
          },
        },
      },
      errors: [404],
    },
    async ({ params, ctx }) => {
      const versions = await deps.backend.getTableSchemas(ctx, tablePathOf(params))
      return {
        status: 200,
        body: { schemas: versions.map(v => ({ schema_id: v.schemaId, schema: schemaJson(v) })) },
      }
    },
  )
}
