import { type BlobStore, parseRemoteLogKey } from '@sluice/core/blobstore'
import type { StoredManifest } from '@sluice/core/remotelog'
import { remoteIdTimestampMs } from '@sluice/core/remotelog'
import type { RemoteCall } from './segment-uploader.js'

/** S3 deletes at most 1000 keys per request. */
const DELETE_BATCH_KEYS = 1000

/**
 * Lists every key under a bucket's tablet prefix, at most `maxKeys` (a bound on one sweep; the
 * rest waits for the next). Call it BEFORE reading the manifest the keys are checked against, so
 * a segment committed meanwhile is seen as referenced.
 */
export async function listTabletKeys(
  blobStore: BlobStore,
  tabletPrefix: string,
  maxKeys: number,
  call: RemoteCall,
): Promise<string[]> {
  const keys: string[] = []
  let cursor: string | undefined
  do {
    const after = cursor
    const page = await call(`list ${tabletPrefix}/`, () =>
      blobStore.list(`${tabletPrefix}/`, after === undefined ? {} : { cursor: after }),
    )
    for (const item of page.items) {
      if (keys.length >= maxKeys) return keys
      keys.push(item.key)
    }
    cursor = page.cursor
  } while (cursor !== undefined)
  return keys
}

/**
 * Keys left behind by crashes: objects of segments the manifest does not name and manifest bodies
 * it does not point to, whose id was made more than `safetyWindowMs` ago. Younger ones may belong
 * to an upload still on its way to a commit (this leader's or the next one's). Keys that are not
 * ours (unknown names) are never touched.
 */
export function selectOrphans(
  keys: readonly string[],
  stored: StoredManifest,
  nowMs: number,
  safetyWindowMs: number,
): string[] {
  const { manifest } = stored
  const liveSegments = new Set(manifest.segments.map(s => s.segmentId))
  const liveManifest =
    stored.manifestKey === null ? null : parseRemoteLogKey(manifest.tabletPrefix, stored.manifestKey)
  return keys.filter(key => {
    const object = parseRemoteLogKey(manifest.tabletPrefix, key)
    if (object === null) return false
    if (object.kind === 'segment' && liveSegments.has(object.id)) return false
    if (object.kind === 'manifest' && liveManifest?.id === object.id) return false
    const createdMs = remoteIdTimestampMs(object.id)
    return createdMs !== null && nowMs - createdMs > safetyWindowMs
  })
}

/** Deletes keys in batches; returns how many were sent for deletion. */
export async function deleteKeys(
  blobStore: BlobStore,
  keys: readonly string[],
  call: RemoteCall,
): Promise<number> {
  for (let i = 0; i < keys.length; i += DELETE_BATCH_KEYS) {
    const batch = keys.slice(i, i + DELETE_BATCH_KEYS)
    await call(`delete ${batch.length} remote objects`, () => blobStore.delete(batch))
  }
  return keys.length
}
