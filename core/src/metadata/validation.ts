import {
  type Configuration,
  TABLE_MERGE_ENGINE,
  TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN,
  TABLE_REPLICATION_FACTOR,
  validateTableProperties,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { type TypeRoot, typeToString } from '../types/data-type.js'
import { aggFunctionProblem, aggFunctionToString } from './agg-function.js'
import { checkPartitioning } from './partition-validation.js'
import type { Schema } from './schema.js'
import type { TableDescriptor } from './table-descriptor.js'

/**
 * Server-side validation of a table to create (Fluss's `TableDescriptorValidation`, release
 * 0.9.1, plus two rules of Fluss 1.0: aggregation functions only on aggregation tables, and DATE
 * auto-partition keys only with the DAY unit). Sluice-specific: the bucket count must be positive.
 *
 * Nested types (ARRAY, MAP, ROW, nested to any depth) are allowed everywhere except in primary-key,
 * bucket-key and partition-key columns, as in Fluss. A versioned table's version column and the
 * aggregation functions other than last_value and first_value (and their _ignore_nulls forms)
 * refuse them through their own type rules.
 */

export interface TableValidationContext {
  /** `max.bucket.num`: most buckets per table (per partition for partitioned tables). */
  readonly maxBucketNum: number
  /** Live tablet servers; when given, a non-partitioned table's replication factor may not exceed it. */
  readonly aliveTabletServers?: number
}

/** Column names reserved for system columns of lake tables and virtual tables. */
export const SYSTEM_COLUMNS: readonly string[] = [
  '__offset',
  '__timestamp',
  '__bucket',
  '_change_type',
  '_log_offset',
  '_commit_timestamp',
]

const KEY_UNSUPPORTED_TYPES: readonly TypeRoot[] = ['ARRAY', 'MAP', 'ROW']
const VERSION_COLUMN_TYPES: readonly TypeRoot[] = [
  'INTEGER',
  'BIGINT',
  'TIMESTAMP_WITHOUT_TIME_ZONE',
  'TIMESTAMP_WITH_LOCAL_TIME_ZONE',
]

const invalidTable = (message: string) => new FlussError('INVALID_TABLE_EXCEPTION', message)
const invalidConfig = (message: string) => new FlussError('INVALID_CONFIG_EXCEPTION', message)

/** Throws the FlussError Fluss would for a descriptor that may not be created. */
export function validateTableDescriptor(d: TableDescriptor, ctx: TableValidationContext): void {
  // Keys, values and the property-only rules (log/kv formats, merge engine and delete behaviour
  // combinations, auto-partitioning of non-partitioned tables).
  const conf = validateTableProperties(d.properties, {
    hasPrimaryKey: d.hasPrimaryKey,
    partitioned: d.isPartitioned,
  })
  checkDistribution(d, ctx.maxBucketNum)
  checkPrimaryKeyTypes(d)
  checkReplicationFactor(conf, d, ctx.aliveTabletServers)
  checkMergeEngine(conf, d.schema)
  checkPartitioning(conf, d.partitionKeys, d.schema)
  checkSystemColumns(d.schema)
}

/**
 * The schema-dependent rules of creation, for a table whose schema changed (ALTER TABLE): key column
 * types, the merge engine's columns, partition keys and reserved names. Distribution and replication
 * are left out: schema changes do not touch them.
 */
export function validateTableSchema(d: TableDescriptor): void {
  const conf = validateTableProperties(d.properties, {
    hasPrimaryKey: d.hasPrimaryKey,
    partitioned: d.isPartitioned,
  })
  checkPrimaryKeyTypes(d)
  checkMergeEngine(conf, d.schema)
  checkPartitioning(conf, d.partitionKeys, d.schema)
  checkSystemColumns(d.schema)
}

function checkDistribution(d: TableDescriptor, maxBucketNum: number): void {
  if (d.distribution === undefined) throw invalidTable('Table distribution is required.')
  const bucketCount = d.bucketCount
  if (bucketCount === undefined) throw invalidTable('Bucket number must be set.')
  if (bucketCount < 1) throw invalidTable(`Number of buckets must be larger than 0, but is ${bucketCount}.`)
  if (bucketCount > maxBucketNum) {
    throw new FlussError(
      'BUCKET_MAX_NUM_EXCEPTION',
      `Bucket count ${bucketCount} exceeds the maximum limit ${maxBucketNum}.`,
    )
  }
  for (const key of d.bucketKeys) {
    const type = d.schema.column(key)?.type
    if (type !== undefined && KEY_UNSUPPORTED_TYPES.includes(type.type)) {
      throw invalidTable(
        `Bucket key column '${key}' has unsupported data type ${typeToString(type)}. ` +
          `Currently, bucket key column does not support types: [${KEY_UNSUPPORTED_TYPES.join(', ')}].`,
      )
    }
  }
}

function checkPrimaryKeyTypes(d: TableDescriptor): void {
  for (const key of d.schema.primaryKeyColumnNames) {
    const type = d.schema.column(key)?.type
    if (type !== undefined && KEY_UNSUPPORTED_TYPES.includes(type.type)) {
      throw invalidTable(
        `Primary key column '${key}' has unsupported data type ${typeToString(type)}. ` +
          `Currently, primary key column does not support types: [${KEY_UNSUPPORTED_TYPES.join(', ')}].`,
      )
    }
  }
}

function checkReplicationFactor(
  conf: Configuration,
  d: TableDescriptor,
  aliveTabletServers: number | undefined,
): void {
  const factor = conf.getOptional(TABLE_REPLICATION_FACTOR)
  if (factor === undefined) {
    throw invalidConfig(`Missing required table property '${TABLE_REPLICATION_FACTOR.key}'.`)
  }
  if (factor <= 0) throw invalidConfig(`'${TABLE_REPLICATION_FACTOR.key}' must be greater than 0.`)
  if (aliveTabletServers !== undefined && !d.isPartitioned && factor > aliveTabletServers) {
    throw new FlussError(
      'INVALID_REPLICATION_FACTOR',
      `Replication factor: ${factor} larger than available tablet servers: ${aliveTabletServers}.`,
    )
  }
}

/** Schema-dependent merge engine rules (the property-only ones run in `validateTableProperties`). */
function checkMergeEngine(conf: Configuration, schema: Schema): void {
  const mergeEngine = conf.getOptional(TABLE_MERGE_ENGINE)
  if (mergeEngine === 'AGGREGATION') checkAggFunctions(schema)
  else checkNoAggFunctions(schema)
  if (mergeEngine === 'VERSIONED') checkVersionColumn(conf, schema)
}

function checkVersionColumn(conf: Configuration, schema: Schema): void {
  const versionColumn = conf.getOptional(TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN)
  if (versionColumn === undefined) {
    throw invalidConfig(
      `'${TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key}' must be set for versioned merge engine.`,
    )
  }
  const column = schema.column(versionColumn)
  if (column === undefined) {
    throw invalidConfig(
      `The version column '${versionColumn}' for versioned merge engine doesn't exist in schema.`,
    )
  }
  if (!VERSION_COLUMN_TYPES.includes(column.type.type)) {
    throw invalidConfig(
      `The version column '${versionColumn}' for versioned merge engine must be one type of ` +
        `[INT, BIGINT, TIMESTAMP, TIMESTAMP_LTZ], but got ${typeToString(column.type)}.`,
    )
  }
}

function checkNoAggFunctions(schema: Schema): void {
  for (const c of schema.columns) {
    if (c.aggFunction !== undefined) {
      throw invalidConfig(
        'Aggregation function is only supported for aggregation merge engine table, ' +
          `but column '${c.name}' has aggregation function '${aggFunctionToString(c.aggFunction)}'.`,
      )
    }
  }
}

function checkAggFunctions(schema: Schema): void {
  const pk = schema.primaryKeyColumnNames
  for (const c of schema.columns) {
    if (c.aggFunction === undefined || pk.includes(c.name)) continue
    const problem = aggFunctionProblem(c.aggFunction, c.type)
    if (problem !== undefined)
      throw invalidConfig(`Invalid aggregation function for column '${c.name}': ${problem}`)
  }
}

function checkSystemColumns(schema: Schema): void {
  const reserved = schema.columnNames.filter(n => SYSTEM_COLUMNS.includes(n))
  if (reserved.length > 0) {
    throw invalidTable(
      `${reserved.join(', ')} cannot be used as column names, because they are reserved system columns in Fluss. ` +
        `Please use other names for these columns. The reserved system columns are: ${SYSTEM_COLUMNS.join(', ')}`,
    )
  }
}
