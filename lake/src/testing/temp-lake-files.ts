import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FsBlobStore } from '@sluice/core/blobstore'
import type { TableInfo } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { type LakeTableOptions, lakeTableOptions } from '../iceberg/options.js'
import { lakePartitioningOf } from '../iceberg/partition.js'
import { lakeSchemaOf } from '../iceberg/schema.js'
import type { DataFile } from '../iceberg/types.js'
import { LakeFileIO } from '../io/file-io.js'
import { DataFileWriter } from '../parquet/data-file-writer.js'
import { writeEqualityDeleteFile } from '../parquet/delete-file-writer.js'
import type { WriteContext } from '../parquet/write-context.js'

/** The files of one lake table: its write context and its file writers. */
export interface TableFiles {
  writeContext(): WriteContext
  newDataFileWriter(bucket: number): DataFileWriter
  writeEqualityDeleteFile(bucket: number, keys: readonly Row[]): Promise<DataFile>
}

/** A lake root in a temporary directory, with file:// locations. */
export interface TempLakeFiles {
  readonly dir: string
  readonly store: FsBlobStore
  readonly io: LakeFileIO
  /** The files of `info`'s lake table at its default location, in its lake schema and partitioning. */
  table(info: TableInfo, options?: Partial<LakeTableOptions>): TableFiles
  close(): Promise<void>
}

export async function tempLakeFiles(clock: () => number = Date.now): Promise<TempLakeFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-lake-'))
  const store = new FsBlobStore(dir)
  const io = new LakeFileIO(store, pathToFileURL(dir).href)
  return {
    dir,
    store,
    io,
    table: (info, options) => {
      const schema = lakeSchemaOf(info)
      const ctx: WriteContext = {
        io,
        location: io.tableLocation(info.tablePath),
        schema,
        partitioning: lakePartitioningOf(info, schema),
        options: lakeTableOptions(options),
        clock,
      }
      return {
        writeContext: () => ctx,
        newDataFileWriter: bucket => new DataFileWriter(ctx, bucket),
        writeEqualityDeleteFile: (bucket, keys) => writeEqualityDeleteFile(ctx, bucket, keys),
      }
    },
    close: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
