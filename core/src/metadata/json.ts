import { type ErrorName, FlussError } from '../errors/index.js'
import { dataTypeToJsonValue, JsonNode, readDataType } from '../types/json.js'
import { type AggFunction, aggFunction, parseAggFunctionType } from './agg-function.js'
import { type Column, Schema, UNKNOWN_COLUMN_ID } from './schema.js'
import { TableDescriptor } from './table-descriptor.js'
import { type DatabaseDescriptor, databaseDescriptor } from './table-info.js'
import type { TablePartition } from './table-path.js'

/**
 * Fluss's JSON forms of schemas, table and database descriptors (`SchemaJsonSerde`,
 * `TableDescriptorJsonSerde`, `DatabaseDescriptorJsonSerde`, `TablePartitionJsonSerde`, release
 * 0.9.1). Output matches the Java serializers byte for byte (keys in their order, optional keys
 * omitted the same way); input is read strictly and also accepts what older Java clients and the
 * Rust/Python clients write (no column ids, no `highest_field_id`).
 */

const VERSION = 1

function columnToJsonValue(c: Column): Record<string, unknown> {
  const out: Record<string, unknown> = { name: c.name, data_type: dataTypeToJsonValue(c.type) }
  if (c.comment !== undefined) out.comment = c.comment
  if (c.aggFunction !== undefined) {
    const params = Object.entries(c.aggFunction.parameters)
    out.agg_function = {
      type: c.aggFunction.type,
      ...(params.length === 0 ? {} : { parameters: c.aggFunction.parameters }),
    }
  }
  if (c.defaultValue !== undefined) out.default_value = c.defaultValue
  out.id = c.columnId
  return out
}

export function schemaToJsonValue(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = { version: VERSION, columns: schema.columns.map(columnToJsonValue) }
  if (schema.primaryKey !== undefined) out.primary_key = schema.primaryKey.columnNames
  if (schema.autoIncrementColumnNames.length > 0) out.auto_increment_column = schema.autoIncrementColumnNames
  out.highest_field_id = schema.highestFieldId
  return out
}

export function schemaToJson(schema: Schema): string {
  return JSON.stringify(schemaToJsonValue(schema))
}

export function schemaFromJson(
  json: string | Uint8Array,
  errorName: ErrorName = 'INVALID_TABLE_EXCEPTION',
): Schema {
  return readSchema(JsonNode.parse(json, 'schema', errorName))
}

function readAggFunction(node: JsonNode): AggFunction {
  const typeNode = node.require('type')
  const type = parseAggFunctionType(typeNode.string())
  if (type === undefined) return typeNode.fail(`'${typeNode.string()}' is not a known aggregation function`)
  return aggFunction(type, node.get('parameters')?.stringMap() ?? {})
}

function readColumn(node: JsonNode): Column {
  const comment = node.get('comment')?.string()
  const agg = node.get('agg_function')
  const defaultValue = node.get('default_value')?.string()
  return {
    name: node.require('name').string(),
    type: readDataType(node.require('data_type')),
    ...(comment === undefined ? {} : { comment }),
    columnId: node.get('id')?.int() ?? UNKNOWN_COLUMN_ID,
    ...(agg === undefined ? {} : { aggFunction: readAggFunction(agg) }),
    ...(defaultValue === undefined ? {} : { defaultValue }),
  }
}

/** Reads a schema from a parsed JSON node. Schema rule violations keep the node's error name. */
export function readSchema(node: JsonNode): Schema {
  return rethrowAs(node, () => {
    const builder = Schema.newBuilder().fromColumns(node.require('columns').array().map(readColumn))
    const pk = node.get('primary_key')
    if (pk !== undefined) builder.primaryKey(pk.stringArray())
    for (const name of node.get('auto_increment_column')?.stringArray() ?? [])
      builder.enableAutoIncrement(name)
    const highest = node.get('highest_field_id')
    if (highest !== undefined) builder.highestFieldId(highest.int())
    return builder.build()
  })
}

export function tableDescriptorToJsonValue(d: TableDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = { version: VERSION, schema: schemaToJsonValue(d.schema) }
  if (d.comment !== undefined) out.comment = d.comment
  out.partition_key = d.partitionKeys
  if (d.distribution !== undefined) {
    out.bucket_key = d.distribution.bucketKeys
    if (d.distribution.bucketCount !== undefined) out.bucket_count = d.distribution.bucketCount
  }
  out.properties = d.properties
  out.custom_properties = d.customProperties
  return out
}

export function tableDescriptorToJson(d: TableDescriptor): string {
  return JSON.stringify(tableDescriptorToJsonValue(d))
}

/** Parses a CreateTable/GetTableInfo `table_json`; any failure is INVALID_TABLE_EXCEPTION. */
export function tableDescriptorFromJson(json: string | Uint8Array): TableDescriptor {
  const node = JsonNode.parse(json, 'table descriptor', 'INVALID_TABLE_EXCEPTION')
  const schema = readSchema(node.require('schema'))
  const bucketKeys = node.get('bucket_key')
  const bucketCount = node.get('bucket_count')
  const comment = node.get('comment')?.string()
  const hasDistribution = bucketKeys !== undefined || bucketCount !== undefined
  return rethrowAs(
    node,
    () =>
      new TableDescriptor({
        schema,
        partitionKeys: node.get('partition_key')?.stringArray() ?? [],
        ...(hasDistribution
          ? {
              distribution: {
                bucketKeys: bucketKeys?.stringArray() ?? [],
                ...(bucketCount === undefined ? {} : { bucketCount: bucketCount.int() }),
              },
            }
          : {}),
        properties: node.get('properties')?.stringMap() ?? {},
        customProperties: node.get('custom_properties')?.stringMap() ?? {},
        ...(comment === undefined ? {} : { comment }),
      }),
  )
}

export function databaseDescriptorToJson(d: DatabaseDescriptor): string {
  const out: Record<string, unknown> = { version: VERSION }
  if (d.comment !== undefined) out.comment = d.comment
  out.custom_properties = d.customProperties
  return JSON.stringify(out)
}

/** Parses a CreateDatabase `database_json`; failures are INVALID_DATABASE_EXCEPTION. */
export function databaseDescriptorFromJson(json: string | Uint8Array): DatabaseDescriptor {
  const node = JsonNode.parse(json, 'database descriptor', 'INVALID_DATABASE_EXCEPTION')
  return databaseDescriptor(node.get('custom_properties')?.stringMap() ?? {}, node.get('comment')?.string())
}

export function tablePartitionToJson(p: TablePartition): string {
  return JSON.stringify({ version: VERSION, table_id: p.tableId, partition_id: p.partitionId })
}

export function tablePartitionFromJson(json: string | Uint8Array): TablePartition {
  const node = JsonNode.parse(json, 'table partition', 'INVALID_REQUEST')
  return { tableId: node.require('table_id').long(), partitionId: node.require('partition_id').long() }
}

/** Runs `build`, re-raising its FlussErrors (schema and descriptor rules) under the node's error name. */
function rethrowAs<T>(node: JsonNode, build: () => T): T {
  try {
    return build()
  } catch (e) {
    if (e instanceof FlussError && e.errorName !== node.errorName)
      throw new FlussError(node.errorName, e.message)
    throw e
  }
}
