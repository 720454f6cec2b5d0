import type { Row, Value } from '../row/value.js'
import type { RowType } from '../types/data-type.js'
import { decodeBatchColumns } from './batch-columns.js'
import { type ArrowColumn, isNull, readValue } from './column-reader.js'
import type { ArrowCompressionType } from './compression.js'
import { CODEC_LZ4_FRAME, CODEC_NONE, readRecordBatchHeader } from './message.js'

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
    this.columns = decodeBatchColumns(
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

/** What the header of a RecordBatch message says, read without touching the body. */
export interface RecordBatchInfo {
  readonly recordCount: number
  /** Field nodes: the column count for flat row types, more with nested columns (`arrowNodeCount`). */
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
