import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LocalCluster } from '@sluice/cli/cluster'
import { type TableBucket, tableBucketToString } from '@sluice/core/metadata'

/**
 * Informational lines of a tablet server process, read from the log file the LocalCluster writes
 * (`<dataDir>/logs/tablet-server-<id>.log`, appended to across restarts): the server writes JSON
 * lines (`{"time", "level", "component", "message", ...fields}`).
 */

/** How a KvTablet came up, as the server reports it (`kv tablet recovered`). */
export interface KvRecoveryLine {
  readonly bucket: string
  readonly path: 'local' | 'snapshot' | 'full-replay'
  readonly snapshotId: number | null
  readonly replayFromOffset: number
  readonly replayedRecords: number
  readonly durationMs: number
  readonly notes: readonly string[]
}

export function tabletLogFile(cluster: LocalCluster, serverId: number): string {
  return join(cluster.dataDir, 'logs', `tablet-server-${serverId}.log`)
}

/** The fields of every JSON log line of the server with this `message`, oldest first. */
export function serverLogFields(
  cluster: LocalCluster,
  serverId: number,
  message: string,
): Record<string, unknown>[] {
  const file = tabletLogFile(cluster, serverId)
  if (!existsSync(file)) return []
  const fields: Record<string, unknown>[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{') || !line.includes(JSON.stringify(message))) continue
    const record = JSON.parse(line) as Record<string, unknown>
    if (record.message === message) fields.push(record)
  }
  return fields
}

/** The server's KvTablet recoveries of one bucket, oldest first. */
export function kvRecoveries(cluster: LocalCluster, serverId: number, bucket: TableBucket): KvRecoveryLine[] {
  const name = tableBucketToString(bucket)
  return serverLogFields(cluster, serverId, 'kv tablet recovered').filter(
    f => f.bucket === name,
  ) as unknown as KvRecoveryLine[]
}
