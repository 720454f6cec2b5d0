import { assert } from '../errors/index.js'
import {
  type DatabaseDescriptor,
  databaseDescriptorFromJson,
  databaseDescriptorToJson,
  type Schema,
  schemaFromJson,
  schemaToJson,
  type TableDescriptor,
  TableInfo,
  type TablePath,
  tableDescriptorFromJson,
  tableDescriptorToJson,
} from '../metadata/index.js'
import type { ItemValue, VersionedItem } from '../metastore/index.js'
import { corruptItem, ITEM_FORMAT, ItemReader } from './item-reader.js'

/**
 * Codecs of the catalog items (keys in metastore/keys.ts):
 *
 *   CATALOG / DB#<db>         database:      { format, descriptor (Fluss DatabaseDescriptor JSON),
 *                                               createdTimeMs, modifiedTimeMs }
 *   DB#<db> / TABLE#<name>    path pointer:  { format, tableId }   (its existence is the table's)
 *   TABLE#<id> / TABLE        table:         { format, databaseName, tableName, descriptor (Fluss
 *                                               TableDescriptor JSON with the current schema),
 *                                               schemaId, state, createdTimeMs, modifiedTimeMs,
 *                                               stateChangedTimeMs }
 *   TABLE#<id> / SCHEMA#<n>   schema:        { format, schema (Fluss Schema JSON) }
 *
 * Descriptors are stored as Fluss's own JSON, so what a client sent is what it reads back.
 */

export interface DatabaseRecord {
  readonly databaseName: string
  readonly descriptor: DatabaseDescriptor
  readonly createdTimeMs: number
  readonly modifiedTimeMs: number
  readonly version: number
}

export function databaseItemValue(
  descriptor: DatabaseDescriptor,
  createdTimeMs: number,
  modifiedTimeMs: number,
): ItemValue {
  return {
    format: ITEM_FORMAT,
    descriptor: databaseDescriptorToJson(descriptor),
    createdTimeMs,
    modifiedTimeMs,
  }
}

export function decodeDatabase(databaseName: string, item: VersionedItem): DatabaseRecord {
  const r = new ItemReader(item)
  return {
    databaseName,
    descriptor: r.parsed('descriptor', databaseDescriptorFromJson),
    createdTimeMs: r.int('createdTimeMs'),
    modifiedTimeMs: r.int('modifiedTimeMs'),
    version: item.version,
  }
}

export interface TablePointer {
  readonly tablePath: TablePath
  readonly tableId: number
  readonly version: number
}

export function tablePointerValue(tableId: number): ItemValue {
  return { format: ITEM_FORMAT, tableId }
}

export function decodeTablePointer(tablePath: TablePath, item: VersionedItem): TablePointer {
  return { tablePath, tableId: new ItemReader(item).int('tableId'), version: item.version }
}

/**
 * CREATING: items are being written, the path pointer does not exist yet (invisible to readers).
 * READY: the pointer exists. DROPPED: the pointer is gone; replicas and items await cleanup.
 */
export const TABLE_STATES = ['CREATING', 'READY', 'DROPPED'] as const
export type TableState = (typeof TABLE_STATES)[number]

export interface TableRecord {
  readonly tableId: number
  readonly tablePath: TablePath
  /** The created descriptor: system defaults applied, bucket count set, current schema. */
  readonly descriptor: TableDescriptor
  readonly schemaId: number
  readonly state: TableState
  readonly createdTimeMs: number
  readonly modifiedTimeMs: number
  readonly stateChangedTimeMs: number
  readonly version: number
}

export type TableRecordFields = Omit<TableRecord, 'tableId' | 'version'>

export function tableItemValue(t: TableRecordFields): ItemValue {
  return {
    format: ITEM_FORMAT,
    databaseName: t.tablePath.databaseName,
    tableName: t.tablePath.tableName,
    descriptor: tableDescriptorToJson(t.descriptor),
    schemaId: t.schemaId,
    state: t.state,
    createdTimeMs: t.createdTimeMs,
    modifiedTimeMs: t.modifiedTimeMs,
    stateChangedTimeMs: t.stateChangedTimeMs,
  }
}

export function decodeTable(tableId: number, item: VersionedItem): TableRecord {
  const r = new ItemReader(item)
  const descriptor = r.parsed('descriptor', tableDescriptorFromJson)
  if (descriptor.bucketCount === undefined)
    throw corruptItem(item, 'holds a descriptor without a bucket count')
  return {
    tableId,
    tablePath: { databaseName: r.string('databaseName'), tableName: r.string('tableName') },
    descriptor,
    schemaId: r.int('schemaId'),
    state: r.oneOf('state', TABLE_STATES),
    createdTimeMs: r.int('createdTimeMs'),
    modifiedTimeMs: r.int('modifiedTimeMs'),
    stateChangedTimeMs: r.int('stateChangedTimeMs'),
    version: item.version,
  }
}

/** The table as Fluss clients see it. */
export function tableInfoOf(t: TableRecord): TableInfo {
  return TableInfo.of(t.tablePath, t.tableId, t.schemaId, t.descriptor, t.createdTimeMs, t.modifiedTimeMs)
}

/** Bucket count of a created table (per partition for partitioned tables). */
export function bucketCountOf(t: TableRecord): number {
  const count = t.descriptor.bucketCount
  assert(count !== undefined, `table ${t.tableId} was stored without a bucket count`)
  return count
}

export interface SchemaRecord {
  readonly tableId: number
  readonly schemaId: number
  readonly schema: Schema
}

export function schemaItemValue(schema: Schema): ItemValue {
  return { format: ITEM_FORMAT, schema: schemaToJson(schema) }
}

export function decodeSchema(tableId: number, schemaId: number, item: VersionedItem): SchemaRecord {
  return { tableId, schemaId, schema: new ItemReader(item).parsed('schema', text => schemaFromJson(text)) }
}
