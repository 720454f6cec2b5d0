import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LocalCluster } from '@sluice/cli/cluster'
import type { TablePath } from '@sluice/core/metadata'

/**
 * What a LocalCluster keeps on disk, read directly from the files (independent of the servers):
 * a tablet server's bucket directories under `<dataDir>/tablet-server-<id>/<db>/<table>-<tableId>/`
 * and the objects of the file-system blob store (`cluster.aws.blobStoreUri`).
 */

/** `<dataDir>/tablet-server-<id>/<db>/<table>-<tableId>` (non-partitioned tables). */
export function tableDir(cluster: LocalCluster, serverId: number, path: TablePath, tableId: number): string {
  return join(cluster.dataDir, `tablet-server-${serverId}`, path.databaseName, `${path.tableName}-${tableId}`)
}

/** Base offsets of the `.log` segment files in a local bucket log directory, ascending ([] if absent). */
export function localSegmentBaseOffsets(logDir: string): number[] {
  if (!existsSync(logDir)) return []
  return readdirSync(logDir)
    .filter(f => /^\d{20}\.log$/.test(f))
    .map(f => Number(f.slice(0, 20)))
    .sort((a, b) => a - b)
}

/** The root directory of the cluster's file-system blob store. */
export function blobRoot(cluster: LocalCluster): string {
  const uri = cluster.aws.blobStoreUri
  if (uri === undefined || !uri.startsWith('file:')) throw new Error(`not a file blob store: ${uri}`)
  return fileURLToPath(uri)
}

/** Files below `dir`, as paths relative to it ([] if absent). */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => join(e.parentPath, e.name).slice(dir.length + 1))
}

/** Remote log segments of a bucket: the base offsets of `remote-log/<tableId>/_/<bucket>/<segmentId>/*.log`. */
export function remoteSegmentBaseOffsets(cluster: LocalCluster, tableId: number, bucket: number): number[] {
  const dir = join(blobRoot(cluster), 'remote-log', String(tableId), '_', String(bucket))
  return filesBelow(dir)
    .filter(f => !f.startsWith('metadata/') && /\/\d{20}\.log$/.test(f))
    .map(f => Number(f.slice(-24, -4)))
    .sort((a, b) => a - b)
}

/** Every object under `remote-log/<tableId>/` (segments, indexes and manifest bodies). */
export function remoteLogObjects(cluster: LocalCluster, tableId: number): string[] {
  return filesBelow(join(blobRoot(cluster), 'remote-log', String(tableId)))
}
