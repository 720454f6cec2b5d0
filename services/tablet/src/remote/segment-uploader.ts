import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { type BlobStore, remoteSegmentKeys } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { RemoteLogSegmentEntry } from '@sluice/core/remotelog'
import type { SealedSegment } from '../log/index.js'

/** Runs one BlobStore call with the caller's timeout and retry policy. */
export type RemoteCall = <T>(what: string, op: () => Promise<T>) => Promise<T>

const READ_CHUNK_BYTES = 1024 * 1024

/**
 * Copies a sealed segment to `<tabletPrefix>/<segmentId>/...`: offset index, time index, writer
 * snapshot (when the log kept one at the segment's end), then the log file. Each file is retried on
 * its own. Only the segment's `sizeInBytes` bytes of the log are sent. Local files are only read,
 * so appends never wait for this. Returns the manifest entry to commit.
 */
export async function uploadSegment(
  blobStore: BlobStore,
  tabletPrefix: string,
  segmentId: string,
  segment: SealedSegment,
  call: RemoteCall,
): Promise<RemoteLogSegmentEntry> {
  const keys = remoteSegmentKeys(tabletPrefix, segmentId, segment.baseOffset, segment.endOffset)
  await call(`upload ${keys.index}`, () => putSmallFile(blobStore, keys.index, segment.indexPath, true))
  await call(`upload ${keys.timeIndex}`, () =>
    putSmallFile(blobStore, keys.timeIndex, segment.timeIndexPath, true),
  )
  const snapshotPath = segment.writerSnapshotPath
  const hasWriterSnapshot =
    snapshotPath !== null &&
    (await call(`upload ${keys.writerSnapshot}`, () =>
      putSmallFile(blobStore, keys.writerSnapshot, snapshotPath, false),
    ))
  await call(`upload ${keys.log}`, () => uploadLog(blobStore, keys.log, segment))
  return {
    segmentId,
    baseOffset: segment.baseOffset,
    endOffset: segment.endOffset,
    maxTimestamp: segment.maxTimestamp,
    sizeInBytes: segment.sizeInBytes,
    hasWriterSnapshot,
  }
}

/**
 * Puts a small local file. A missing index is uploaded empty (a reader then scans the segment from
 * its start); a missing writer snapshot is skipped. Returns whether something was written.
 */
async function putSmallFile(
  blobStore: BlobStore,
  key: string,
  path: string,
  emptyWhenMissing: boolean,
): Promise<boolean> {
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT') {
      throw new FlussError('LOG_STORAGE_EXCEPTION', `reading ${path} for upload: ${(e as Error).message}`, {
        cause: e,
      })
    }
    if (!emptyWhenMissing) return false
    bytes = Buffer.alloc(0)
  }
  await blobStore.put(key, bytes)
  return true
}

async function uploadLog(blobStore: BlobStore, key: string, segment: SealedSegment): Promise<void> {
  const size = segment.sizeInBytes
  if (size === 0) {
    await blobStore.put(key, Buffer.alloc(0))
    return
  }
  const stream = createReadStream(segment.logPath, {
    start: 0,
    end: size - 1,
    highWaterMark: READ_CHUNK_BYTES,
  })
  const info = await blobStore.upload(key, stream)
  if (info.size !== size) {
    throw new FlussError(
      'LOG_STORAGE_EXCEPTION',
      `uploaded ${info.size} bytes of ${segment.logPath} to ${key}, expected ${size} (the file was cut?)`,
    )
  }
}
