import type { Row } from '@sluice/core/row'
import type { TableMetadata } from '../iceberg/types.js'
import type { LakeFileIO } from '../io/file-io.js'
import type { LakeSource } from '../io/lake-source.js'
import { scanLakeSnapshot } from './lake-files.js'

/**
 * Merge-on-read scan of one snapshot through a writer's file IO (the reader union reads use), all
 * rows in memory: for tests and small tables.
 */

/** The file IO as a lake source. */
export function lakeSourceOf(io: LakeFileIO): LakeSource {
  return { rootUri: io.rootUri, read: location => io.readIfExists(location) }
}

/** The live rows of a snapshot (the current one by default), merge-on-read applied. */
export async function scanSnapshot(io: LakeFileIO, md: TableMetadata, snapshotId?: bigint): Promise<Row[]> {
  const out: Row[] = []
  for await (const rows of scanLakeSnapshot(lakeSourceOf(io), md, snapshotId)) out.push(...rows)
  return out
}
