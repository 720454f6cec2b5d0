import { Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { type DataType, DataTypes, notNull } from '@sluice/core/types'

/** Fluss tables of the lake tests, as specs and as TableInfo. */

export interface TableSpec {
  readonly columns: readonly (readonly [string, DataType])[]
  readonly primaryKey?: readonly string[]
  readonly partitionKeys?: readonly string[]
  readonly bucketKeys?: readonly string[]
  readonly buckets?: number
  readonly properties?: Record<string, string>
  readonly name?: string
}

export function tableInfoOf(spec: TableSpec): TableInfo {
  let builder = Schema.newBuilder()
  for (const [name, type] of spec.columns) builder = builder.column(name, type)
  if (spec.primaryKey !== undefined) builder = builder.primaryKey([...spec.primaryKey])
  const descriptor = new TableDescriptor({
    schema: builder.build(),
    partitionKeys: spec.partitionKeys ?? [],
    distribution: { bucketCount: spec.buckets ?? 2, bucketKeys: spec.bucketKeys ?? [] },
    properties: spec.properties ?? {},
  })
  return TableInfo.of(
    tablePath('fluss', spec.name ?? 'orders'),
    7,
    0,
    descriptor,
    1_700_000_000_000,
    1_700_000_000_000,
  )
}

/** A log table: id, name, amount, event time. */
export const LOG_TABLE: TableSpec = {
  name: 'events',
  columns: [
    ['id', notNull(DataTypes.BIGINT())],
    ['name', DataTypes.STRING()],
    ['amount', DataTypes.DECIMAL(10, 2)],
    ['event_time', DataTypes.TIMESTAMP_LTZ(3)],
  ],
}

/** A primary-key table bucketed by its key. */
export const PK_TABLE: TableSpec = {
  name: 'orders',
  columns: [
    ['id', DataTypes.BIGINT()],
    ['name', DataTypes.STRING()],
    ['qty', DataTypes.INT()],
  ],
  primaryKey: ['id'],
  bucketKeys: ['id'],
}

/** A partitioned primary-key table (partition column part of the key). */
export const PARTITIONED_PK_TABLE: TableSpec = {
  name: 'daily',
  columns: [
    ['dt', DataTypes.STRING()],
    ['id', DataTypes.BIGINT()],
    ['name', DataTypes.STRING()],
  ],
  primaryKey: ['dt', 'id'],
  partitionKeys: ['dt'],
  bucketKeys: ['id'],
}
