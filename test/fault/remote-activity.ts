import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { LocalCluster } from '@sluice/cli/cluster'
import { type BlobStore, remoteLogTabletPrefix } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { sleep } from '@sluice/core/util'
import { loadRemoteManifest, readKvSnapshotRegistry } from '../it/support/remote-state.js'
import { blobRoot } from '../it/support/storage-files.js'

/**
 * kill -9 of a tablet server while it is uploading a log segment or taking a KV snapshot, caught in
 * the act: the files are polled every few milliseconds; when a new upload or snapshot shows up the
 * server is frozen (SIGSTOP), the metadata store is checked to be sure the work is not committed
 * yet, and the frozen server is killed. Work found already committed lets the server go on (SIGCONT)
 * and the watch continues, until `timeoutMs`.
 */

const POLL_MS = 2

export interface KillReport {
  readonly point: 'upload' | 'snapshot'
  /** True when the server died with the work caught uncommitted; false when the watch timed out. */
  readonly inProgress: boolean
  readonly detail: string
}

export interface ActivityWatch {
  readonly cluster: LocalCluster
  readonly serverId: number
  readonly metaStore: MetaStore
  readonly blobStore: BlobStore
  readonly timeoutMs: number
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/**
 * Kills the server while a segment upload is on its way: a segment folder holding some of the
 * segment's objects, but not yet its `.log` (uploaded last, before the commit), that the committed
 * manifest does not name: the upload can never be committed, and its objects stay behind.
 */
export async function killDuringUpload(
  watch: ActivityWatch,
  buckets: readonly TableBucket[],
): Promise<KillReport> {
  const root = blobRoot(watch.cluster)
  const dirs = buckets.map(b => ({ bucket: b, dir: join(root, remoteLogTabletPrefix(b)) }))
  const seen = new Set(dirs.flatMap(d => entries(d.dir).map(name => `${d.dir}/${name}`)))
  const server = watch.cluster.tablet(watch.serverId)
  const deadline = Date.now() + watch.timeoutMs
  while (Date.now() < deadline) {
    for (const { bucket, dir } of dirs) {
      for (const name of entries(dir)) {
        const path = join(dir, name)
        // An empty folder: its first object is still being written; wait for it.
        if (name === 'metadata' || seen.has(path) || entries(path).length === 0) continue
        server.pause()
        const files = entries(path)
        const { manifest } = await loadRemoteManifest(watch.metaStore, watch.blobStore, bucket)
        if (!files.some(f => f.endsWith('.log')) && !manifest.has(name)) {
          await watch.cluster.killTabletServer(watch.serverId)
          return {
            point: 'upload',
            inProgress: true,
            detail: `segment ${name} of bucket ${bucket.tableId}/${bucket.bucket} had ${files}, not in the manifest`,
          }
        }
        seen.add(path)
        server.resume()
      }
    }
    await sleep(POLL_MS)
  }
  await watch.cluster.killTabletServer(watch.serverId)
  return { point: 'upload', inProgress: false, detail: 'no upload caught in progress' }
}

/**
 * Kills the server while an incremental KV snapshot of `bucket` is on its way: its local checkpoint
 * folder (`<checkpointDir>/<snapshotId>`, removed when the run ends) made after the watch started,
 * for a snapshot id the registry head does not list as committed, while it lists earlier ones.
 */
export async function killDuringSnapshot(
  watch: ActivityWatch,
  bucket: TableBucket,
  checkpointDir: string,
): Promise<KillReport> {
  const server = watch.cluster.tablet(watch.serverId)
  const startMs = Date.now()
  const tried = new Set<string>()
  const deadline = startMs + watch.timeoutMs
  while (Date.now() < deadline) {
    for (const name of entries(checkpointDir)) {
      const dir = join(checkpointDir, name)
      if (tried.has(name) || !isNewerThan(dir, startMs)) continue
      tried.add(name)
      server.pause()
      const registry = await readKvSnapshotRegistry(watch.metaStore, bucket)
      const committed = registry?.retained ?? []
      if (existsSync(dir) && committed.length > 0 && !committed.includes(Number(name))) {
        await watch.cluster.killTabletServer(watch.serverId)
        return {
          point: 'snapshot',
          inProgress: true,
          detail: `snapshot ${name} checkpointed, not committed (committed: ${committed})`,
        }
      }
      server.resume()
    }
    await sleep(POLL_MS)
  }
  await watch.cluster.killTabletServer(watch.serverId)
  return { point: 'snapshot', inProgress: false, detail: 'no snapshot caught in progress' }
}

function isNewerThan(path: string, ms: number): boolean {
  try {
    return statSync(path).ctimeMs >= ms
  } catch {
    return false
  }
}
