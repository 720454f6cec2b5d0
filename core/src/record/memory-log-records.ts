import { FlussError } from '../errors/index.js'
import { LogRecordBatch } from './log-record-batch.js'
import {
  asBuffer,
  isSupportedMagic,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  layoutForMagic,
  MAGIC_OFFSET,
} from './log-record-batch-format.js'

/** Where the batch at a position ends, or why no whole batch starts there. */
export type BatchBoundary =
  | { readonly ok: true; readonly size: number }
  | { readonly ok: false; readonly reason: 'truncated' | 'corrupt'; readonly message: string }

/**
 * Reads only the Length and Magic fields of the batch at `position` (bytes end at `end`): a whole
 * batch needs a known magic, a size of at least its header, and all its bytes present.
 */
export function batchBoundaryAt(buf: Buffer, position: number, end = buf.length): BatchBoundary {
  const remaining = end - position
  if (remaining < LOG_OVERHEAD + 1) {
    return {
      ok: false,
      reason: 'truncated',
      message: `${remaining} trailing bytes at position ${position} hold no batch header`,
    }
  }
  const magic = buf.readInt8(position + MAGIC_OFFSET)
  if (!isSupportedMagic(magic)) {
    return {
      ok: false,
      reason: 'corrupt',
      message: `unsupported log batch magic ${magic} at position ${position}`,
    }
  }
  const size = buf.readInt32LE(position + LENGTH_OFFSET) + LOG_OVERHEAD
  const { headerSize } = layoutForMagic(magic)
  if (size < headerSize) {
    return {
      ok: false,
      reason: 'corrupt',
      message: `log batch at position ${position} has size ${size} < header size ${headerSize}`,
    }
  }
  if (size > remaining) {
    return {
      ok: false,
      reason: 'truncated',
      message: `log batch at position ${position} is truncated: size ${size}, only ${remaining} bytes left`,
    }
  }
  return { ok: true, size }
}

/**
 * Several log record batches concatenated in one buffer (a produce request's records, a fetch
 * response, a slice of a segment). Iteration is shallow (sizes and magic only); `validateAll`
 * checks every batch fully.
 */
export class MemoryLogRecords {
  static readonly EMPTY = new MemoryLogRecords(Buffer.alloc(0))
  readonly buffer: Buffer

  constructor(bytes: Uint8Array) {
    this.buffer = asBuffer(bytes)
  }

  get sizeInBytes(): number {
    return this.buffer.length
  }

  /** Each batch in order; a truncated or malformed tail throws CORRUPT_RECORD_EXCEPTION. */
  *batches(): Generator<LogRecordBatch> {
    let position = 0
    while (position < this.buffer.length) {
      const boundary = batchBoundaryAt(this.buffer, position)
      if (!boundary.ok) throw new FlussError('CORRUPT_RECORD_EXCEPTION', boundary.message)
      yield new LogRecordBatch(this.buffer, position)
      position += boundary.size
    }
  }

  /** Validates every batch (CRC, counts); returns them all or throws before returning any. */
  validateAll(): LogRecordBatch[] {
    const batches: LogRecordBatch[] = []
    for (const batch of this.batches()) {
      try {
        batch.validate()
      } catch (e) {
        if (e instanceof FlussError) {
          throw new FlussError(e.spec, `batch ${batches.length} at position ${batch.position}: ${e.message}`)
        }
        throw e
      }
      batches.push(batch)
    }
    return batches
  }

  /** Each batch as its own buffer view (no copy). */
  split(): Buffer[] {
    return Array.from(this.batches(), b => b.bytes())
  }
}

/**
 * The size of the longest prefix of whole batches that fits in `maxBytes`, scanning no further than
 * the first malformed or truncated batch. With `minOneMessage`, the first batch counts even when it is
 * larger than `maxBytes`.
 */
export function wholeBatchesPrefixSize(bytes: Uint8Array, maxBytes: number, minOneMessage = false): number {
  const buf = asBuffer(bytes)
  let position = 0
  while (position < buf.length) {
    const boundary = batchBoundaryAt(buf, position)
    if (!boundary.ok) break
    const fits = position + boundary.size <= maxBytes || (minOneMessage && position === 0)
    if (!fits) break
    position += boundary.size
  }
  return position
}
