import { mkdir, open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { type BlobStore, kvSnapshotPrivateFileKey, kvSnapshotSharedFileKey } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { crc32c } from '@sluice/core/record'
import { newRemoteId } from '@sluice/core/remotelog'
import { fileCrc32c, mapBounded, type SharedFileIndex } from './kv-snapshot-files.js'
import type { KvSnapshot, KvSnapshotFile } from './kv-snapshot-types.js'
import type { CheckpointFile, RocksDbCheckpoint } from './rocksdb-checkpoint.js'
import type { SnapshotCall } from './snapshot-retry.js'

export interface TransferContext {
  readonly blobStore: BlobStore
  readonly call: SnapshotCall
  /** Files moved at once. */
  readonly concurrency: number
  readonly nowMs: () => number
}

export interface UploadedCheckpoint {
  /** Every file of the snapshot, in the checkpoint's order. */
  readonly files: KvSnapshotFile[]
  /** Keys written by this upload (to delete when the snapshot is not committed). */
  readonly uploadedKeys: string[]
  readonly uploadedBytes: number
  readonly reusedBytes: number
}

/**
 * Uploads a checkpoint as snapshot `snapshotId`: SST files already in a committed snapshot are
 * referred to, new ones go to the shared directory, MANIFEST, CURRENT and OPTIONS to the
 * snapshot's own directory. Every object is checked to hold the file's size. On failure the keys
 * written so far are reported through `onUploaded` (for the caller to delete).
 */
export async function uploadCheckpoint(
  ctx: TransferContext,
  args: {
    readonly tabletPrefix: string
    readonly snapshotId: number
    readonly checkpoint: RocksDbCheckpoint
    readonly committed: readonly KvSnapshotFile[]
    readonly index: SharedFileIndex
    readonly onUploaded: (key: string) => void
  },
): Promise<UploadedCheckpoint> {
  const attemptId = newRemoteId(ctx.nowMs())
  const uploadedKeys: string[] = []
  let uploadedBytes = 0
  let reusedBytes = 0
  const files = await mapBounded(args.checkpoint.files, ctx.concurrency, async file => {
    if (file.role === 'shared') {
      const identity = await args.index.identity(file)
      const { reuse, crc32c } = await args.index.match(file, args.committed)
      if (reuse !== null) {
        reusedBytes += reuse.size
        return reuse
      }
      const key = kvSnapshotSharedFileKey(args.tabletPrefix, newRemoteId(ctx.nowMs()), file.name)
      const uploaded = await uploadFile(ctx, key, file, crc32c, args.onUploaded)
      args.index.remember(identity, uploaded)
      uploadedKeys.push(key)
      uploadedBytes += file.size
      return uploaded
    }
    const key = kvSnapshotPrivateFileKey(args.tabletPrefix, args.snapshotId, attemptId, file.name)
    const uploaded = await uploadFile(ctx, key, file, null, args.onUploaded)
    uploadedKeys.push(key)
    uploadedBytes += file.size
    return uploaded
  })
  return { files, uploadedKeys, uploadedBytes, reusedBytes }
}

async function uploadFile(
  ctx: TransferContext,
  key: string,
  file: CheckpointFile,
  knownCrc: number | null,
  onUploaded: (key: string) => void,
): Promise<KvSnapshotFile> {
  const crc = knownCrc ?? (await fileCrc32c(file.path))
  onUploaded(key)
  const info = await ctx.call(`upload ${key}`, () => ctx.blobStore.upload(key, file.path))
  if (info.size !== file.size) {
    throw new FlussError(
      'STORAGE_EXCEPTION',
      `uploaded ${info.size} bytes of ${file.path} to ${key}, expected ${file.size}`,
    )
  }
  return { key, name: file.name, size: file.size, crc32c: crc, role: file.role }
}

/**
 * Downloads a snapshot into `dir` (replaced): into `<dir>.restoring` first, every file checked for
 * size and CRC-32C, then renamed into place, so `dir` never holds half a snapshot.
 */
export async function downloadSnapshot(
  ctx: TransferContext,
  snapshot: KvSnapshot,
  dir: string,
): Promise<void> {
  const names = new Set(snapshot.files.map(f => f.name))
  if (names.size !== snapshot.files.length || !names.has('CURRENT')) {
    throw new FlussError(
      'KV_STORAGE_EXCEPTION',
      `KV snapshot ${snapshot.snapshotId} has duplicate file names or no CURRENT file`,
    )
  }
  const tmp = `${dir}.restoring`
  await rm(tmp, { recursive: true, force: true })
  await mkdir(tmp, { recursive: true })
  try {
    await mapBounded(snapshot.files, ctx.concurrency, file =>
      ctx.call(`download ${file.key}`, () => downloadFile(ctx.blobStore, file, join(tmp, file.name))),
    )
    await rm(dir, { recursive: true, force: true })
    await rename(tmp, dir)
  } catch (e) {
    await rm(tmp, { recursive: true, force: true })
    throw e
  }
}

async function downloadFile(blobStore: BlobStore, file: KvSnapshotFile, path: string): Promise<void> {
  const stream = await blobStore.getStream(file.key)
  if (stream === undefined) {
    throw new FlussError('KV_STORAGE_EXCEPTION', `KV snapshot file ${file.key} does not exist`)
  }
  const fh = await open(path, 'w')
  let size = 0
  let crc = 0
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer
      crc = crc32c(bytes, crc)
      size += bytes.length
      await fh.write(bytes)
    }
  } finally {
    stream.destroy()
    await fh.close()
  }
  if (size !== file.size || crc !== file.crc32c) {
    throw new FlussError(
      'STORAGE_EXCEPTION',
      `KV snapshot file ${file.key}: got ${size} bytes with CRC ${crc}, expected ${file.size} bytes with CRC ${file.crc32c}`,
    )
  }
}
