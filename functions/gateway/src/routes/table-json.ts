import { typeToString } from '@sluice/core'
import type { TableInfo } from '@sluice/core/metadata'
import { dataTypeToJsonValue, type TypeRoot } from '@sluice/core/types'
import type { JsonSchema } from '../openapi/json-schema.js'
import type { RouteRegistry } from '../openapi/registry.js'
import { NAME_SCHEMA, STRING_MAP } from './route-deps.js'

const TYPE_ROOTS: readonly TypeRoot[] = [
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'STRING',
  'BYTES',
  'DATE',
  'CHAR',
  'BINARY',
  'DECIMAL',
  'TIME_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
  'ARRAY',
  'MAP',
  'ROW',
]

/** A table's info and schema as the API returns it. */
export function tableJson(info: TableInfo): Record<string, unknown> {
  return {
    database: info.tablePath.databaseName,
    name: info.tablePath.tableName,
    table_id: info.tableId,
    schema_id: info.schemaId,
    kind: info.hasPrimaryKey ? 'primary_key' : 'log',
    schema: schemaJson(info),
    bucket_count: info.numBuckets,
    bucket_keys: [...info.bucketKeys],
    partition_keys: [...info.partitionKeys],
    properties: { ...info.properties },
    custom_properties: { ...info.customProperties },
    comment: info.comment ?? null,
    created_time: info.createdTime,
    modified_time: info.modifiedTime,
  }
}

export function schemaJson(info: Pick<TableInfo, 'schema'>): Record<string, unknown> {
  return {
    columns: info.schema.columns.map(c => ({
      name: c.name,
      column_id: c.columnId,
      type: dataTypeToJsonValue(c.type),
      type_string: typeToString(c.type),
      comment: c.comment ?? null,
      default_value: c.defaultValue ?? null,
    })),
    primary_key: [...info.schema.primaryKeyColumnNames],
  }
}

/** The request form of a column type: compact text or Fluss's JSON type object. */
export function dataTypeSchema(r: RouteRegistry): JsonSchema {
  return r.schema('DataType', DATA_TYPE_SCHEMA)
}

const DATA_TYPE_SCHEMA: JsonSchema = {
  description:
    'A Fluss type: compact text such as "DECIMAL(10, 2) NOT NULL", or Fluss\'s JSON form such as {"type":"DECIMAL","precision":10,"scale":2,"nullable":false}.',
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 10_000 },
    {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: TYPE_ROOTS }, nullable: { type: 'boolean' } },
    },
  ],
}

export function tableSchemaRefs(r: RouteRegistry): { table: JsonSchema; schema: JsonSchema } {
  const column = r.schema('ColumnInfo', {
    type: 'object',
    required: ['name', 'column_id', 'type', 'type_string', 'comment', 'default_value'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      column_id: {
        type: 'integer',
        description: 'The stable id of the column: kept through renames and type changes, never reused.',
      },
      type: { type: 'object', required: ['type'], description: "Fluss's JSON form of the type." },
      type_string: { type: 'string', description: 'The compact text form of the type.' },
      comment: { type: ['string', 'null'] },
      default_value: {
        type: ['string', 'null'],
        description: 'The write default (text), filled in for a column a written row leaves out.',
      },
    },
  })
  const schema = r.schema('TableSchema', {
    type: 'object',
    required: ['columns', 'primary_key'],
    additionalProperties: false,
    properties: {
      columns: { type: 'array', items: column },
      primary_key: { type: 'array', items: { type: 'string' } },
    },
  })
  const table = r.schema('Table', {
    type: 'object',
    additionalProperties: false,
    required: [
      'database',
      'name',
      'table_id',
      'schema_id',
      'kind',
      'schema',
      'bucket_count',
      'bucket_keys',
      'partition_keys',
      'properties',
      'custom_properties',
      'comment',
      'created_time',
      'modified_time',
    ],
    properties: {
      database: NAME_SCHEMA,
      name: NAME_SCHEMA,
      table_id: { type: 'integer' },
      schema_id: { type: 'integer' },
      kind: { type: 'string', enum: ['log', 'primary_key'] },
      schema,
      bucket_count: { type: 'integer', minimum: 1 },
      bucket_keys: { type: 'array', items: { type: 'string' } },
      partition_keys: { type: 'array', items: { type: 'string' } },
      properties: STRING_MAP,
      custom_properties: STRING_MAP,
      comment: { type: ['string', 'null'] },
      created_time: { type: 'integer' },
      modified_time: { type: 'integer' },
    },
  })
  return { table, schema }
}
