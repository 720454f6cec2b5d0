import { assert, FlussError } from '../errors/index.js'
import { batchBoundaryAt, LENGTH_OFFSET, LOG_OVERHEAD, LogRecordBatch } from '../record/index.js'

/** Reads `[start, end)` of one remote object; returns fewer bytes only when the object is shorter. */
export type RangeRead = (start: number, end: number) => Promise<Buffer>

export interface RemoteBatchReadParams {
  /** Bytes of the segment's log object. */
  readonly segmentBytes: number
  /** Where to start walking batches (from the offset index; a batch boundary). */
  readonly startPosition: number
  /** Batches ending below this are skipped. */
  readonly fetchOffset: number
  readonly maxBytes: number
  /** Return the first batch even if it is larger than `maxBytes`. */
  readonly minOneMessage: boolean
  /** Smallest ranged GET (a batch header and its neighbours fit in one). */
  readonly chunkBytes: number
  /** Names the object in errors. */
  readonly where: string
}

/**
 * Whole batches from one remote segment: the first that holds `fetchOffset` (or, in a gap, the
 * first after it) and those after it, up to `maxBytes` in total, read with ranged GETs. Every batch
 * is checked (size, CRC-32C) before it is returned; a damaged object is LOG_STORAGE_EXCEPTION.
 */
export async function readRemoteBatches(read: RangeRead, p: RemoteBatchReadParams): Promise<Buffer> {
  const out: Buffer[] = []
  let bytes = 0
  let position = p.startPosition
  let needBytes = p.chunkBytes
  while (position < p.segmentBytes) {
    const end = Math.min(p.segmentBytes, position + Math.max(needBytes, p.chunkBytes, p.maxBytes - bytes))
    const chunk = await read(position, end)
    if (chunk.length !== end - position) {
      throw damaged(
        p,
        position,
        `object ended after ${position + chunk.length} bytes, expected ${p.segmentBytes}`,
      )
    }
    const walked = walkChunk(chunk, position, p, out, bytes)
    bytes = walked.bytes
    if (walked.done) break
    assert(walked.consumed > 0 || walked.needBytes > chunk.length, `no progress reading ${p.where}`)
    position += walked.consumed
    needBytes = walked.needBytes
  }
  return Buffer.concat(out)
}

interface Walked {
  readonly consumed: number
  readonly bytes: number
  readonly done: boolean
  /** Bytes the next GET must cover to hold the batch cut at the chunk's end. */
  readonly needBytes: number
}

function walkChunk(
  chunk: Buffer,
  chunkStart: number,
  p: RemoteBatchReadParams,
  out: Buffer[],
  bytesIn: number,
): Walked {
  let at = 0
  let bytes = bytesIn
  while (at < chunk.length) {
    const boundary = batchBoundaryAt(chunk, at)
    if (!boundary.ok) {
      const truncatedByChunk = boundary.reason === 'truncated' && chunkStart + chunk.length < p.segmentBytes
      if (!truncatedByChunk) throw damaged(p, chunkStart + at, boundary.message)
      const headerCut = chunk.length - at < LOG_OVERHEAD
      const size = headerCut ? LOG_OVERHEAD + 1 : chunk.readInt32LE(at + LENGTH_OFFSET) + LOG_OVERHEAD
      return { consumed: at, bytes, done: false, needBytes: Math.max(size, p.chunkBytes) }
    }
    const batch = new LogRecordBatch(chunk, at)
    try {
      batch.validate()
    } catch (e) {
      throw damaged(p, chunkStart + at, (e as Error).message)
    }
    if (batch.lastOffset >= p.fetchOffset) {
      const fits = bytes + boundary.size <= p.maxBytes || (out.length === 0 && p.minOneMessage)
      if (!fits) return { consumed: at, bytes, done: true, needBytes: 0 }
      out.push(chunk.subarray(at, at + boundary.size))
      bytes += boundary.size
    }
    at += boundary.size
  }
  return { consumed: at, bytes, done: false, needBytes: 0 }
}

function damaged(p: RemoteBatchReadParams, position: number, why: string): FlussError {
  return new FlussError(
    'LOG_STORAGE_EXCEPTION',
    `remote segment ${p.where} is damaged at position ${position}: ${why}`,
  )
}
