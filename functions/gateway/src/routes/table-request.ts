import type { DataType } from '@sluice/core'
import { SchemaBuilder, TableDescriptor } from '@sluice/core/metadata'
import { JsonNode, parseTypeString, readDataType } from '@sluice/core/types'
import { invalidArgument } from '../errors/gateway-error.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import type { RouteRegistry } from '../openapi/registry.js'
import { NAME_SCHEMA } from './route-deps.js'
import { dataTypeSchema } from './table-json.js'

export interface CreateTableBody {
  readonly name: string
  readonly schema: {
    readonly columns: readonly { name: string; type: string | Record<string, unknown>; comment?: string }[]
    readonly primary_key?: readonly string[]
  }
  readonly bucket_count?: number
  readonly bucket_keys?: readonly string[]
  readonly partition_keys?: readonly string[]
  readonly properties?: Readonly<Record<string, string | number | boolean>>
  readonly custom_properties?: Readonly<Record<string, string>>
  readonly comment?: string
  readonly if_not_exists?: boolean
}

/** A column type from its compact text or Fluss JSON form; errors name `path`. */
export function columnType(type: string | Record<string, unknown>, path: string): DataType {
  if (typeof type === 'string') {
    try {
      return parseTypeString(type)
    } catch (e) {
      if (e instanceof RangeError) throw invalidArgument(`${path}: ${e.message}`)
      throw e
    }
  }
  return readDataType(new JsonNode(type, path, 'table schema', 'INVALID_TABLE_EXCEPTION'))
}

/** Builds the table descriptor of a create-table request (validated further by the cluster). */
export function tableDescriptorOf(body: CreateTableBody): TableDescriptor {
  const schema = new SchemaBuilder()
  body.schema.columns.forEach((c, i) => {
    schema.column(c.name, columnType(c.type, `schema.columns[${i}].type`))
    if (c.comment !== undefined) schema.withComment(c.comment)
  })
  if (body.schema.primary_key !== undefined && body.schema.primary_key.length > 0) {
    schema.primaryKey(...body.schema.primary_key)
  }
  const builder = TableDescriptor.builder().schema(schema.build())
  if (body.partition_keys !== undefined) builder.partitionedBy(...body.partition_keys)
  if (body.bucket_count !== undefined || body.bucket_keys !== undefined) {
    builder.distributedBy(body.bucket_count, ...(body.bucket_keys ?? []))
  }
  for (const [k, v] of Object.entries(body.properties ?? {})) builder.property(k, v)
  builder.customProperties(body.custom_properties ?? {})
  builder.comment(body.comment)
  return builder.build()
}

export function createTableRequestSchema(r: RouteRegistry): JsonSchema {
  const names = { type: 'array', items: { type: 'string', minLength: 1 } } as const
  const column = r.schema('ColumnDefinition', {
    type: 'object',
    required: ['name', 'type'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1 },
      type: dataTypeSchema(r),
      comment: { type: 'string' },
    },
  })
  return r.schema('CreateTableRequest', {
    type: 'object',
    required: ['name', 'schema'],
    additionalProperties: false,
    properties: {
      name: NAME_SCHEMA,
      schema: {
        type: 'object',
        required: ['columns'],
        additionalProperties: false,
        properties: { columns: { type: 'array', minItems: 1, items: column }, primary_key: names },
      },
      bucket_count: {
        type: 'integer',
        minimum: 1,
        description: "Default: the cluster's default.bucket.number.",
      },
      bucket_keys: {
        ...names,
        description: 'Default: the physical primary key (primary-key tables) or none.',
      },
      partition_keys: names,
      properties: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: 'table.* options.',
      },
      custom_properties: { type: 'object', additionalProperties: { type: 'string' } },
      comment: { type: 'string' },
      if_not_exists: { type: 'boolean', description: 'Succeed when the table already exists.' },
    },
  })
}
