import type { BlobStore } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { batchBoundaryAt, LENGTH_OFFSET, LOG_OVERHEAD, LogRecordBatch } from '@sluice/core/record'
import type { RemoteLogManifest, RemoteLogSegmentEntry } from '@sluice/core/remotelog'
import { withRetries } from './retry.js'

/**
 * Reading one bucket's tiered (sealed, uploaded) segments from an offset on, whole batch by whole
 * batch, as the remote-log manifest lists them. Nothing of the log's hot tail is ever read: the
 * manifest only holds segments the leader sealed and uploaded, so a round can only stop at a batch
 * boundary of tiered data.
 *
 * Segments of different leaders may overlap (batches are replicated verbatim, so a batch below the
 * position reached is skipped); a hole between segments (data that expired before it was
 * uploaded) is skipped and reported.
 */

export interface TieredLogReadOptions {
  /** Bytes per ranged GET of a segment object. */
  readonly readChunkBytes: number
  /** Attempts of a failed GET (transient object-store errors) before the round fails. */
  readonly readAttempts: number
  readonly retryBackoffMs: number
}

export interface TieredBatchRead {
  readonly batch: LogRecordBatch
  readonly segment: RemoteLogSegmentEntry
}

export interface TieredLogCursor {
  /** The next offset to tier (exclusive end of what was read). */
  next: number
  /** Bytes of batches handed out. */
  bytes: number
  /** Offset ranges [from, to) skipped because no tiered segment holds them. */
  readonly gaps: { from: number; to: number }[]
}

function damaged(key: string, position: number, why: string): FlussError {
  return new FlussError(
    'LOG_STORAGE_EXCEPTION',
    `tiered segment ${key} is damaged at position ${position}: ${why}`,
  )
}

/**
 * The batches of `manifest` from `cursor.next` on, until `maxBytes` of batches were handed out
 * (at least one batch, so a round always progresses) or the tiered data ends. Advances `cursor`.
 */
export async function* readTieredBatches(
  blobStore: BlobStore,
  manifest: RemoteLogManifest,
  cursor: TieredLogCursor,
  maxBytes: number,
  options: TieredLogReadOptions,
): AsyncGenerator<TieredBatchRead> {
  for (const segment of manifest.segments) {
    if (segment.endOffset <= cursor.next) continue
    if (segment.baseOffset > cursor.next) {
      cursor.gaps.push({ from: cursor.next, to: segment.baseOffset })
      cursor.next = segment.baseOffset
    }
    const key = manifest.keysOf(segment).log
    for await (const batch of segmentBatches(blobStore, key, segment, options)) {
      if (batch.lastOffset < cursor.next) continue
      if (batch.baseOffset !== cursor.next) {
        throw damaged(
          key,
          batch.position,
          `batch at offset ${batch.baseOffset} does not continue at ${cursor.next}`,
        )
      }
      if (cursor.bytes > 0 && cursor.bytes + batch.sizeInBytes > maxBytes) return
      cursor.bytes += batch.sizeInBytes
      cursor.next = batch.nextOffset
      yield { batch, segment }
    }
    if (cursor.next < segment.endOffset) {
      throw damaged(
        key,
        segment.sizeInBytes,
        `it ends at offset ${cursor.next}, the manifest says ${segment.endOffset}`,
      )
    }
  }
}

/** Every batch of one segment object, read in chunks of `readChunkBytes`, each one validated. */
async function* segmentBatches(
  blobStore: BlobStore,
  key: string,
  segment: RemoteLogSegmentEntry,
  options: TieredLogReadOptions,
): AsyncGenerator<LogRecordBatch> {
  let position = 0
  let carry: Buffer = Buffer.alloc(0)
  while (position < segment.sizeInBytes) {
    const want = Math.max(options.readChunkBytes, neededBytes(carry))
    const end = Math.min(segment.sizeInBytes, position + want)
    const chunk = await withRetries(options.readAttempts, options.retryBackoffMs, async () => {
      const bytes = await blobStore.get(key, { range: { start: position, end } })
      if (bytes === undefined)
        throw new FlussError('LOG_STORAGE_EXCEPTION', `tiered segment ${key} is missing`)
      return bytes
    })
    if (chunk.length !== end - position)
      throw damaged(key, position, `object ended after ${position + chunk.length} bytes`)
    const buf = carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([carry, chunk])
    const start = position - carry.length
    position = end
    let at = 0
    while (at < buf.length) {
      const boundary = batchBoundaryAt(buf, at)
      if (!boundary.ok) {
        if (boundary.reason === 'truncated' && position < segment.sizeInBytes) break
        throw damaged(key, start + at, boundary.message)
      }
      const batch = new LogRecordBatch(buf, at)
      try {
        batch.validate()
      } catch (e) {
        throw damaged(key, start + at, (e as Error).message)
      }
      yield batch
      at += boundary.size
    }
    carry = buf.subarray(at)
  }
  if (carry.length > 0)
    throw damaged(key, segment.sizeInBytes - carry.length, 'trailing bytes hold no whole batch')
}

/** Bytes needed to complete the partial batch at the start of `carry`. */
function neededBytes(carry: Buffer): number {
  if (carry.length < LOG_OVERHEAD) return LOG_OVERHEAD + 1
  return carry.readInt32LE(LENGTH_OFFSET) + LOG_OVERHEAD - carry.length
}
