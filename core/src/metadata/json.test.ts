import { describe, expect, it } from 'vitest'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes, notNull } from '../types/data-type.js'
import { AggFunctions } from './agg-function.js'
import {
  databaseDescriptorFromJson,
  databaseDescriptorToJson,
  schemaFromJson,
  schemaToJson,
  tableDescriptorFromJson,
  tableDescriptorToJson,
  tablePartitionFromJson,
  tablePartitionToJson,
} from './json.js'
import { Schema } from './schema.js'
import { TableDescriptor } from './table-descriptor.js'
import { databaseDescriptor } from './table-info.js'

// Schemas and expected JSON from Fluss's SchemaJsonSerdeTest / TableDescriptorJsonSerdeTest (0.9.1).
const SCHEMA_0 = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .withComment('a is first column')
  .column('b', DataTypes.STRING())
  .withComment('b is second column')
  .column('c', DataTypes.CHAR(10))
  .withComment('c is third column')
  .primaryKey('a', 'c')
  .build()

const SCHEMA_1 = Schema.newBuilder()
  .fromColumns([
    { name: 'a', type: DataTypes.INT(), columnId: -1 },
    { name: 'b', type: DataTypes.STRING(), comment: 'b is second column', columnId: -1 },
    { name: 'c', type: DataTypes.TIMESTAMP(), comment: 'c is third column', columnId: -1 },
  ])
  .primaryKey(['a'])
  .build()

const SCHEMA_3 = Schema.newBuilder()
  .column('a', DataTypes.BIGINT())
  .withComment('a is first column')
  .column('b', DataTypes.STRING())
  .withComment('b is second column')
  .column('c', DataTypes.TIMESTAMP(6))
  .withComment('c is third column')
  .build()

const SCHEMA_4 = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .withComment('a is first column')
  .column('b', DataTypes.INT())
  .withComment('b is second column')
  .column('c', DataTypes.CHAR(10))
  .withComment('c is third column')
  .primaryKey('a', 'c')
  .enableAutoIncrement('b')
  .build()

const SCHEMA_5 = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .withComment('a is first column')
  .column(
    'b',
    DataTypes.ROW([
      { name: 'c', type: DataTypes.INT(), description: 'a is first column', fieldId: 0 },
      { name: 'd', type: DataTypes.INT(), description: 'a is first column', fieldId: 1 },
    ]),
  )
  .withComment('b is second column')
  .build()

const SCHEMA_WITH_AGG = Schema.newBuilder()
  .column('product_id', notNull(DataTypes.BIGINT()))
  .column('total_sales', DataTypes.BIGINT(), AggFunctions.SUM())
  .column('max_price', DataTypes.DECIMAL(10, 2), AggFunctions.MAX())
  .column('last_update_time', DataTypes.TIMESTAMP(), AggFunctions.LAST_VALUE_IGNORE_NULLS())
  .column('tags', DataTypes.STRING(), AggFunctions.LISTAGG(';'))
  .column('categories', DataTypes.STRING(), AggFunctions.STRING_AGG('|'))
  .column('labels', DataTypes.STRING(), AggFunctions.LISTAGG())
  .primaryKey('product_id')
  .build()

const SCHEMA_JSON_0 =
  '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER","nullable":false},"comment":"a is first column","id":0},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column","id":1},{"name":"c","data_type":{"type":"CHAR","nullable":false,"length":10},"comment":"c is third column","id":2}],"primary_key":["a","c"],"highest_field_id":2}'
const SCHEMA_JSON_1 =
  '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER","nullable":false},"id":0},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column","id":1},{"name":"c","data_type":{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6},"comment":"c is third column","id":2}],"primary_key":["a"],"highest_field_id":2}'
const SCHEMA_JSON_3 =
  '{"version":1,"columns":[{"name":"a","data_type":{"type":"BIGINT"},"comment":"a is first column","id":0},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column","id":1},{"name":"c","data_type":{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6},"comment":"c is third column","id":2}],"highest_field_id":2}'
const SCHEMA_JSON_4 =
  '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER","nullable":false},"comment":"a is first column","id":0},{"name":"b","data_type":{"type":"INTEGER"},"comment":"b is second column","id":1},{"name":"c","data_type":{"type":"CHAR","nullable":false,"length":10},"comment":"c is third column","id":2}],"primary_key":["a","c"],"auto_increment_column":["b"],"highest_field_id":2}'
const SCHEMA_JSON_5 =
  '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"},"comment":"a is first column","id":0},{"name":"b","data_type":{"type":"ROW","fields":[{"name":"c","field_type":{"type":"INTEGER"},"description":"a is first column","field_id":2},{"name":"d","field_type":{"type":"INTEGER"},"description":"a is first column","field_id":3}]},"comment":"b is second column","id":1}],"highest_field_id":3}'
const SCHEMA_JSON_WITH_AGG =
  '{"version":1,"columns":[{"name":"product_id","data_type":{"type":"BIGINT","nullable":false},"id":0},{"name":"total_sales","data_type":{"type":"BIGINT"},"agg_function":{"type":"sum"},"id":1},{"name":"max_price","data_type":{"type":"DECIMAL","precision":10,"scale":2},"agg_function":{"type":"max"},"id":2},{"name":"last_update_time","data_type":{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6},"agg_function":{"type":"last_value_ignore_nulls"},"id":3},{"name":"tags","data_type":{"type":"STRING"},"agg_function":{"type":"listagg","parameters":{"delimiter":";"}},"id":4},{"name":"categories","data_type":{"type":"STRING"},"agg_function":{"type":"string_agg","parameters":{"delimiter":"|"}},"id":5},{"name":"labels","data_type":{"type":"STRING"},"agg_function":{"type":"listagg"},"id":6}],"primary_key":["product_id"],"highest_field_id":6}'

describe('schema JSON', () => {
  it.each([
    ['SCHEMA_0', SCHEMA_0, SCHEMA_JSON_0],
    ['SCHEMA_1', SCHEMA_1, SCHEMA_JSON_1],
    ['SCHEMA_2 (fromSchema)', Schema.newBuilder().fromSchema(SCHEMA_1).build(), SCHEMA_JSON_1],
    ['SCHEMA_3', SCHEMA_3, SCHEMA_JSON_3],
    ['SCHEMA_4', SCHEMA_4, SCHEMA_JSON_4],
    ['SCHEMA_5', SCHEMA_5, SCHEMA_JSON_5],
    ['SCHEMA_WITH_AGG', SCHEMA_WITH_AGG, SCHEMA_JSON_WITH_AGG],
  ])('%s matches Fluss byte for byte and round-trips', (_name, schema, json) => {
    expect(schemaToJson(schema)).toBe(json)
    const back = schemaFromJson(Buffer.from(json))
    expect(back.equals(schema)).toBe(true)
    expect(schemaToJson(back)).toBe(json)
  })

  it('reads schemas written without column ids (old Java and Rust/Python clients)', () => {
    const old0 =
      '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER","nullable":false},"comment":"a is first column"},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column"},{"name":"c","data_type":{"type":"CHAR","nullable":false,"length":10},"comment":"c is third column"}],"primary_key":["a","c"]}'
    const old1 =
      '{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER","nullable":false}},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column"},{"name":"c","data_type":{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6},"comment":"c is third column"}],"primary_key":["a"]}'
    const old3 =
      '{"version":1,"columns":[{"name":"a","data_type":{"type":"BIGINT"},"comment":"a is first column"},{"name":"b","data_type":{"type":"STRING"},"comment":"b is second column"},{"name":"c","data_type":{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6},"comment":"c is third column"}]}'
    expect(schemaFromJson(old0).equals(SCHEMA_0)).toBe(true)
    expect(schemaFromJson(old1).equals(SCHEMA_1)).toBe(true)
    expect(schemaFromJson(old3).equals(SCHEMA_3)).toBe(true)
  })

  it.each([
    ['columns missing', '{"version":1}', "is missing required field 'columns'"],
    [
      'column without name',
      '{"columns":[{"data_type":{"type":"INTEGER"}}]}',
      "columns[0] is missing required field 'name'",
    ],
    [
      'bad data type',
      '{"columns":[{"name":"a","data_type":{"type":"X"}}]}',
      "columns[0].data_type.type unknown data type root 'X'",
    ],
    [
      'id not an int',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"},"id":"0"}]}',
      'columns[0].id must be a 32-bit integer',
    ],
    [
      'primary key not array',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"}}],"primary_key":"a"}',
      'must be a JSON array',
    ],
    [
      'unknown agg function',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"},"agg_function":{"type":"avg"}}]}',
      "'avg' is not a known aggregation function",
    ],
    [
      'pk column missing',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"}}],"primary_key":["b"]}',
      'should include all primary key constraint [b]',
    ],
    [
      'mixed ids',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"},"id":0},{"name":"b","data_type":{"type":"INTEGER"}}]}',
      'All columns must have columnId or none',
    ],
    [
      'duplicate ids',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"},"id":0},{"name":"b","data_type":{"type":"INTEGER"},"id":0}]}',
      'All field IDs (including nested fields) must be unique',
    ],
    [
      'highest too low',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"},"id":3}],"highest_field_id":1}',
      'Highest field ID (1) must be greater than or equal to the maximum field ID (3)',
    ],
    [
      'two auto-increment columns',
      '{"columns":[{"name":"a","data_type":{"type":"INTEGER"}},{"name":"b","data_type":{"type":"INTEGER"}},{"name":"c","data_type":{"type":"INTEGER"}}],"primary_key":["a"],"auto_increment_column":["b","c"]}',
      'Multiple auto increment columns are not supported yet.',
    ],
  ])('rejects %s with INVALID_TABLE_EXCEPTION', (_name, json, text) => {
    expectFlussError(() => schemaFromJson(json), 'INVALID_TABLE_EXCEPTION', text)
  })

  it('keeps a caller error name for schema rule violations', () => {
    const json = '{"columns":[{"name":"a","data_type":{"type":"INTEGER"}}],"primary_key":["b"]}'
    expectFlussError(
      () => schemaFromJson(json, 'INVALID_REQUEST'),
      'INVALID_REQUEST',
      'primary key constraint',
    )
  })
})

describe('table descriptor JSON', () => {
  const TD_0 = TableDescriptor.builder()
    .schema(SCHEMA_0)
    .comment('first table')
    .partitionedBy('c')
    .distributedBy(16, 'a')
    .property('option-2', '200')
    .property('option-1', '100')
    .customProperties({ 'custom-1': '"value-1"' })
    .build()
  const TD_1 = TableDescriptor.builder()
    .schema(SCHEMA_1)
    .distributedBy(32)
    .property('option-3', '300')
    .property('option-4', '400')
    .property('table.log.format', 'INDEXED')
    .property('table.kv.format', 'INDEXED')
    .build()
  const TD_JSON_0 = `{"version":1,"schema":${SCHEMA_JSON_0},"comment":"first table","partition_key":["c"],"bucket_key":["a"],"bucket_count":16,"properties":{"option-2":"200","option-1":"100"},"custom_properties":{"custom-1":"\\"value-1\\""}}`
  const TD_JSON_1 = `{"version":1,"schema":${SCHEMA_JSON_1},"partition_key":[],"bucket_key":["a"],"bucket_count":32,"properties":{"option-3":"300","option-4":"400","table.log.format":"INDEXED","table.kv.format":"INDEXED"},"custom_properties":{}}`

  it.each([
    ['partitioned PK table', TD_0, TD_JSON_0],
    ['PK table with default bucket key', TD_1, TD_JSON_1],
  ])('%s matches Fluss byte for byte and round-trips', (_name, descriptor, json) => {
    expect(tableDescriptorToJson(descriptor)).toBe(json)
    const back = tableDescriptorFromJson(new TextEncoder().encode(json))
    expect(tableDescriptorToJson(back)).toBe(json)
    expect(back.schema.equals(descriptor.schema)).toBe(true)
    expect(back.bucketKeys).toEqual(descriptor.bucketKeys)
    expect(back.properties).toEqual(descriptor.properties)
  })

  it('omits bucket_key and bucket_count when a log table has no distribution', () => {
    const d = TableDescriptor.builder().schema(SCHEMA_3).build()
    const json = tableDescriptorToJson(d)
    expect(json).toBe(
      `{"version":1,"schema":${SCHEMA_JSON_3},"partition_key":[],"properties":{},"custom_properties":{}}`,
    )
    const back = tableDescriptorFromJson(json)
    expect(back.distribution).toBeUndefined()
  })

  it('reads a bucket count without bucket keys and number-valued properties', () => {
    const json = `{"version":1,"schema":${SCHEMA_JSON_3},"bucket_count":4,"properties":{"table.replication.factor":3}}`
    const d = tableDescriptorFromJson(json)
    expect(d.bucketCount).toBe(4)
    expect(d.bucketKeys).toEqual([])
    expect(d.properties).toEqual({ 'table.replication.factor': '3' })
  })

  it.each([
    ['not JSON', 'nope', 'Failed to parse table descriptor'],
    ['schema missing', '{"version":1}', "is missing required field 'schema'"],
    [
      'partition keys not strings',
      `{"schema":${SCHEMA_JSON_3},"partition_key":[1]}`,
      'partition_key[0] must be a string',
    ],
    [
      'bucket count not int',
      `{"schema":${SCHEMA_JSON_3},"bucket_count":"3"}`,
      'bucket_count must be a 32-bit integer',
    ],
    [
      'property value object',
      `{"schema":${SCHEMA_JSON_3},"properties":{"a":{}}}`,
      "properties value of 'a' must be a string",
    ],
    [
      'bucket key unknown',
      `{"schema":${SCHEMA_JSON_3},"bucket_key":["zz"],"bucket_count":1}`,
      "Bucket key 'zz' does not exist in the schema.",
    ],
    [
      'partition key outside PK',
      `{"schema":${SCHEMA_JSON_0},"partition_key":["b"]}`,
      'Partitioned Primary Key Table requires partition key [b] is a subset of the primary key [a, c].',
    ],
  ])('rejects %s with INVALID_TABLE_EXCEPTION', (_name, json, text) => {
    expectFlussError(() => tableDescriptorFromJson(json), 'INVALID_TABLE_EXCEPTION', text)
  })
})

describe('database descriptor and table partition JSON', () => {
  it('writes and reads database descriptors like Fluss', () => {
    const withComment = databaseDescriptor({}, 'second-table')
    expect(databaseDescriptorToJson(withComment)).toBe(
      '{"version":1,"comment":"second-table","custom_properties":{}}',
    )
    const withProps = databaseDescriptor({ 'option-3': '300' })
    const json = '{"version":1,"custom_properties":{"option-3":"300"}}'
    expect(databaseDescriptorToJson(withProps)).toBe(json)
    expect(databaseDescriptorFromJson(json)).toEqual(withProps)
    expect(databaseDescriptorFromJson(databaseDescriptorToJson(withComment))).toEqual(withComment)
  })

  it('rejects malformed database JSON with INVALID_DATABASE_EXCEPTION', () => {
    expectFlussError(
      () => databaseDescriptorFromJson('{'),
      'INVALID_DATABASE_EXCEPTION',
      'Failed to parse database descriptor',
    )
    expectFlussError(
      () => databaseDescriptorFromJson('{"comment":1}'),
      'INVALID_DATABASE_EXCEPTION',
      'comment must be a string',
    )
  })

  it('writes and reads table partitions like Fluss', () => {
    expect(tablePartitionToJson({ tableId: 1, partitionId: 2 })).toBe(
      '{"version":1,"table_id":1,"partition_id":2}',
    )
    expect(tablePartitionFromJson('{"version":1,"table_id":5,"partition_id":6}')).toEqual({
      tableId: 5,
      partitionId: 6,
    })
    expectFlussError(() => tablePartitionFromJson('{"table_id":1}'), 'INVALID_REQUEST', 'partition_id')
  })
})
