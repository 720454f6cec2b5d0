import type { FsBlobStore } from '@sluice/core/blobstore'
import type { TableInfo } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import type { Row } from '@sluice/core/row'
import type { LakeFileIO } from '@sluice/lake/io'
import { tempLakeFiles } from '@sluice/lake/testing'
import { LocalCatalog } from '../catalog/local-catalog.js'
import { type ChangeRecord, collapseChangelog } from '../iceberg/changelog.js'
import { IcebergTable } from '../iceberg/table.js'
import type { LakeTableState } from '../iceberg/table-state.js'

/** A lake in a temporary directory with file:// locations, and its tables as tiering writes them. */

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
  const { dir, store, io, close } = await tempLakeFiles(clock)
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
    close,
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
