import { rmdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import type { PhysicalTablePath, TableBucket } from '@sluice/core/metadata'

/**
 * Where a bucket replica keeps its data under `data.dir`:
 *
 *   <data.dir>/<database>/<table>-<tableId>/log-<bucket>                                  non-partitioned
 *   <data.dir>/<database>/<table>-<tableId>/<partition>-<partitionId>/log-<bucket>        partitioned
 *
 * The ids make a re-created table (same name, new id) land in a new directory. A KV bucket will
 * sit beside its log as `kv-<bucket>`.
 */
export function logTabletDir(dataDir: string, path: PhysicalTablePath, bucket: TableBucket): string {
  return join(tabletParentDir(dataDir, path, bucket), `log-${bucket.bucket}`)
}

/** The table (or partition) directory that holds the bucket directories. */
export function tabletParentDir(dataDir: string, path: PhysicalTablePath, bucket: TableBucket): string {
  const { databaseName, tableName } = path.tablePath
  const tableDir = join(dataDir, safeName(databaseName), `${safeName(tableName)}-${bucket.tableId}`)
  if (bucket.partitionId === undefined) return tableDir
  if (path.partitionName === undefined) {
    throw new FlussError(
      'INVALID_REQUEST',
      `bucket ${bucket.bucket} of partition id ${bucket.partitionId} comes without a partition name`,
    )
  }
  return join(tableDir, `${safeName(path.partitionName)}-${bucket.partitionId}`)
}

/** Names come from the coordinator, validated at creation; refuse anything that could escape. */
function safeName(name: string): string {
  if (name.length === 0 || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new FlussError('INVALID_REQUEST', `'${name}' cannot be used as a directory name`)
  }
  return name
}

/**
 * After a dropped bucket's directories went: removes its partition directory and then its table
 * directory, each only when empty (other buckets and partitions keep theirs).
 */
export async function removeEmptyParentDirs(
  dataDir: string,
  path: PhysicalTablePath,
  bucket: TableBucket,
): Promise<void> {
  const parent = tabletParentDir(dataDir, path, bucket)
  const dirs = bucket.partitionId === undefined ? [parent] : [parent, dirname(parent)]
  for (const dir of dirs) {
    try {
      await rmdir(dir)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return
      if (code !== 'ENOENT') throw e
    }
  }
}
