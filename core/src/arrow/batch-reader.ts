import type { Row, Value } from '../row/value.js'
import type { RowType } from '../types/data-type.js'
import { rowLayouts } from './arrow-type.js'
import { type ArrowColumn, decodeColumn, isNull, readValue } from './column-reader.js'
import type { ArrowCompressionType } from './compression.js'
import { decompressPiece } from './compression.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number } from './int64.js'
import {
  bufferRegion,
  CODEC_LZ4_FRAME,
  CODEC_NONE,
  type RecordBatchHeader,
  readRecordBatchHeader,
} from './message.js'

export interface ArrowBatchReaderOptions {
  /** Upper bound on the total decompressed size of one batch (default 256 MiB). */
  readonly maxUncompressedBytes?: number
}

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024

/**
 * Reads one Arrow IPC RecordBatch message (Fluss's records section) against the Fluss row type
 * it was written with: for a projected fetch, pass the projected row type (`projectRowType`).
 * The constructor validates the whole message (framing, node and buffer counts, buffer bounds,
 * sizes, offsets) and decompresses it; value access is then in place, without further checks
 * beyond the row and column index.
 */
export class ArrowBatchReader {
  readonly recordCount: number
  /** Bytes the message occupies (prefix, metadata and body) from the start of the input. */
  readonly messageSizeInBytes: number
  private readonly columns: ArrowColumn[]

  constructor(
    message: Uint8Array,
    readonly rowType: RowType,
    options: ArrowBatchReaderOptions = {},
  ) {
    // A plain Uint8Array view, so values sliced from a Node Buffer input are copies, not views.
    const bytes = new Uint8Array(message.buffer, message.byteOffset, message.byteLength)
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
    const header = readRecordBatchHeader(view)
    this.recordCount = header.length
    this.messageSizeInBytes = header.frame.end
    this.columns = decodeColumns(
      bytes,
      view,
      header,
      rowType,
      options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
    )
  }

  get fieldCount(): number {
    return this.columns.length
  }

  private checkRow(rowIdx: number): void {
    if (!(rowIdx >= 0 && rowIdx < this.recordCount) || !Number.isInteger(rowIdx)) {
      throw new RangeError(`row ${rowIdx} is outside 0..${this.recordCount - 1}`)
    }
  }

  private column(rowIdx: number, colIdx: number): ArrowColumn {
    this.checkRow(rowIdx)
    const c = this.columns[colIdx]
    if (c === undefined) throw new RangeError(`column ${colIdx} is outside 0..${this.columns.length - 1}`)
    return c
  }

  isNullAt(rowIdx: number, colIdx: number): boolean {
    return isNull(this.column(rowIdx, colIdx), rowIdx)
  }

  getValue(rowIdx: number, colIdx: number): Value {
    return readValue(this.column(rowIdx, colIdx), rowIdx)
  }

  getRow(rowIdx: number): Row {
    this.checkRow(rowIdx)
    const row = new Array<Value>(this.columns.length)
    for (let c = 0; c < row.length; c++) row[c] = readValue(this.columns[c], rowIdx)
    return row
  }

  *rows(): IterableIterator<Row> {
    for (let i = 0; i < this.recordCount; i++) yield this.getRow(i)
  }

  toRows(): Row[] {
    const rows = new Array<Row>(this.recordCount)
    for (let i = 0; i < rows.length; i++) rows[i] = this.getRow(i)
    return rows
  }
}

function decodeColumns(
  message: Uint8Array,
  view: DataView,
  header: RecordBatchHeader,
  rowType: RowType,
  maxUncompressedBytes: number,
): ArrowColumn[] {
  const layouts = rowLayouts(rowType)
  const expectedBuffers = layouts.reduce((sum, l) => sum + l.bufferCount, 0)
  if (header.nodeCount !== layouts.length) {
    throw corrupt(`batch has ${header.nodeCount} field nodes, the row type has ${layouts.length} columns`)
  }
  if (header.bufferCount !== expectedBuffers) {
    throw corrupt(`batch has ${header.bufferCount} buffers, the row type needs ${expectedBuffers}`)
  }
  const pieces = bufferPieces(message, view, header)
  if (header.codec !== CODEC_NONE) checkUncompressedTotal(pieces, maxUncompressedBytes)
  const columns: ArrowColumn[] = []
  let b = 0
  for (let c = 0; c < layouts.length; c++) {
    const field = rowType.fields[c]
    const at = header.nodes + 16 * c
    const length = getInt64Number(view, at)
    const nullCount = getInt64Number(view, at + 8)
    if (length !== header.length)
      throw corrupt(`column '${field.name}' has ${length} values in a batch of ${header.length}`)
    if (!(nullCount >= 0 && nullCount <= length))
      throw corrupt(`column '${field.name}' has null count ${nullCount}`)
    if (nullCount > 0 && !field.type.nullable)
      throw corrupt(`NOT NULL column '${field.name}' has ${nullCount} nulls`)
    const buffers = pieces.slice(b, b + layouts[c].bufferCount)
    if (header.codec !== CODEC_NONE) {
      for (let i = 0; i < buffers.length; i++)
        buffers[i] = decompressPiece(header.codec, buffers[i], maxUncompressedBytes)
    }
    const scale = field.type.type === 'DECIMAL' ? field.type.scale : 0
    columns.push(decodeColumn(field.name, layouts[c], scale, length, nullCount, buffers))
    b += layouts[c].bufferCount
  }
  return columns
}

function bufferPieces(message: Uint8Array, view: DataView, header: RecordBatchHeader): Uint8Array[] {
  const region = { offset: 0, length: 0 }
  const pieces: Uint8Array[] = []
  const bodyStart = header.frame.bodyStart
  for (let i = 0; i < header.bufferCount; i++) {
    bufferRegion(view, header, i, region)
    pieces.push(message.subarray(bodyStart + region.offset, bodyStart + region.offset + region.length))
  }
  return pieces
}

/** Rejects a batch whose declared uncompressed buffers add up past the limit, before inflating any. */
function checkUncompressedTotal(pieces: readonly Uint8Array[], maxUncompressedBytes: number): void {
  let total = 0
  for (const piece of pieces) {
    if (piece.length < 8) continue
    const declared = getInt64Number(new DataView(piece.buffer, piece.byteOffset, 8), 0)
    // -1: stored raw; NaN or other negatives are rejected when the buffer is decoded
    if (declared === -1) total += piece.length - 8
    else if (declared > 0) total += declared
  }
  if (total > maxUncompressedBytes) {
    throw corrupt(
      `batch declares ${total} uncompressed bytes, more than the limit of ${maxUncompressedBytes}`,
    )
  }
}

/** What the header of a RecordBatch message says, read without touching the body. */
export interface RecordBatchInfo {
  readonly recordCount: number
  readonly fieldCount: number
  readonly compression: ArrowCompressionType
  readonly bodyLength: number
  /** Bytes the message occupies from the start of the input. */
  readonly messageSizeInBytes: number
}

/** Parses only the header of a RecordBatch message (cheap; validates framing and metadata). */
export function readRecordBatchInfo(message: Uint8Array): RecordBatchInfo {
  const header = readRecordBatchHeader(new DataView(message.buffer, message.byteOffset, message.byteLength))
  return {
    recordCount: header.length,
    fieldCount: header.nodeCount,
    compression:
      header.codec === CODEC_NONE ? 'NONE' : header.codec === CODEC_LZ4_FRAME ? 'LZ4_FRAME' : 'ZSTD',
    bodyLength: header.frame.bodyLength,
    messageSizeInBytes: header.frame.end,
  }
}
