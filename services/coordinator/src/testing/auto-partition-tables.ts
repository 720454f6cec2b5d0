import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import { Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { resolveTimeZone, toInstant } from '../auto-partition/time-zone.js'

/** Test helpers: auto-partitioned tables and local times. */

export interface TestTableOptions {
  readonly tableId: number
  readonly unit: AutoPartitionTimeUnit
  readonly zone: string
  /** Partition keys `dt, a` with `table.auto-partition.key=dt` instead of `dt`. */
  readonly multiKey?: boolean
  /** The `dt` column is DATE instead of STRING. */
  readonly dateKey?: boolean
  readonly numPreCreate?: number
  readonly numRetention?: number
  readonly numBuckets?: number
  readonly properties?: Readonly<Record<string, string>>
}

export function autoPartitionedTable(o: TestTableOptions): TableInfo {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('dt', o.dateKey ? DataTypes.DATE() : DataTypes.STRING())
    .column('a', DataTypes.BIGINT())
    .build()
  const descriptor = TableDescriptor.builder()
    .schema(schema)
    .distributedBy(o.numBuckets ?? 3)
    .partitionedBy(o.multiKey ? ['dt', 'a'] : ['dt'])
    .property('table.auto-partition.enabled', true)
    .property('table.auto-partition.time-unit', o.unit)
    .property('table.auto-partition.time-zone', o.zone)
    .property('table.auto-partition.num-precreate', o.numPreCreate ?? (o.multiKey ? 0 : 4))
    .property('table.auto-partition.num-retention', o.numRetention ?? 2)
    .properties({ ...(o.multiKey ? { 'table.auto-partition.key': 'dt' } : {}), ...o.properties })
    .build()
  return TableInfo.of(tablePath('db', `t${o.tableId}`), o.tableId, 1, descriptor, 0, 0)
}

/** The same table with some properties changed (what ALTER TABLE produces). */
export function alteredTable(table: TableInfo, properties: Readonly<Record<string, string>>): TableInfo {
  const descriptor = TableDescriptor.builder(table.toTableDescriptor()).properties(properties).build()
  return TableInfo.of(table.tablePath, table.tableId, table.schemaId, descriptor, table.createdTime, 1)
}

/** The instant of `yyyy-MM-ddTHH:mm` in the zone. */
export function localInstant(zone: string, text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text)
  if (m === null) throw new Error(`not a local date-time: ${text}`)
  const [year, month, day, hour, minute] = m.slice(1).map(Number)
  return toInstant(resolveTimeZone(zone, 'UTC'), { year, month, day, hour, minute, second: 0, millis: 0 })
}
