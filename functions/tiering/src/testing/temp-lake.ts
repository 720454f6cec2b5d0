import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FsBlobStore } from '@sluice/core/blobstore'
import { Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import type { Row } from '@sluice/core/row'
import { type DataType, DataTypes, notNull } from '@sluice/core/types'
import { LakeFileIO } from '@sluice/lake/io'
import { LocalCatalog } from '../catalog/local-catalog.js'
import { type ChangeRecord, collapseChangelog } from '../iceberg/changelog.js'
import { IcebergTable } from '../iceberg/table.js'
import type { LakeTableState } from '../iceberg/table-state.js'

/** Test fixtures: Fluss tables and a lake in a temporary directory with file:// locations. */

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

export interface TempLake {
  readonly dir: string
  readonly store: FsBlobStore
  readonly io: LakeFileIO
  readonly metaStore: MemoryMetaStore
  readonly catalog: LocalCatalog
  table(info: TableInfo, options?: ConstructorParameters<typeof IcebergTable>[1]['options']): IcebergTable
  close(): Promise<void>
}

export async function tempLake(clock: () => number = Date.now): Promise<TempLake> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-lake-'))
  const store = new FsBlobStore(dir)
  const io = new LakeFileIO(store, pathToFileURL(dir).href)
  const metaStore = new MemoryMetaStore()
  const catalog = new LocalCatalog(metaStore, io, clock)
  return {
    dir,
    store,
    io,
    metaStore,
    catalog,
    table: (info, options) =>
      new IcebergTable(info.tablePath, { io, catalog, clock, ...(options ? { options } : {}) }),
    close: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Tiers one round of a primary-key bucket's changelog, as the tiering round does. */
export async function tierPkRound(
  table: IcebergTable,
  base: LakeTableState,
  bucket: number,
  changes: readonly ChangeRecord[],
  endOffset: number,
  partition?: { partitionId: number; partitionName: string },
) {
  const pk = table.writeContext().schema.primaryKeyIndexes
  const { upserts, deleteKeys } = collapseChangelog(changes, pk)
  const writer = table.newDataFileWriter(bucket)
  await writer.write(upserts)
  const dataFiles = await writer.finish()
  const deleteFiles = deleteKeys.length === 0 ? [] : [await table.writeEqualityDeleteFile(bucket, deleteKeys)]
  return table.commitAppend({
    dataFiles,
    deleteFiles,
    summary: { flussOffsets: [{ ...partition, bucket, offset: endOffset }] },
    base,
  })
}

/** Tiers `rows` (ids from..to-1 of a log table of `rowOf`) into `bucket` as one commit. */
export async function tierLogRound(
  table: IcebergTable,
  base: LakeTableState,
  bucket: number,
  from: number,
  to: number,
  rowOf: (id: number) => Row,
) {
  const writer = table.newDataFileWriter(bucket)
  await writer.write(
    Array.from({ length: to - from }, (_, k) => ({
      row: rowOf(from + k),
      offset: from + k,
      timestampMs: 1_000 + from + k,
    })),
  )
  return table.commitAppend({
    dataFiles: await writer.finish(),
    summary: { flussOffsets: [{ bucket, offset: to }] },
    base,
  })
}
