import { FlussError } from '../errors/index.js'
import type { Row } from '../row/value.js'
import type { RowType } from '../types/data-type.js'
import { rowLayouts } from './column-layout.js'
import { type ArrowColumnWriter, pad8 } from './column-writer.js'
import {
  type ArrowCompressionInfo,
  codecOf,
  compressPayload,
  DEFAULT_ZSTD_LEVEL,
  NO_COMPRESSION,
} from './compression.js'
import { setInt64Number } from './int64.js'
import { CODEC_NONE, recordBatchMetadataSize, writeRecordBatchHeader } from './message.js'
import { createColumnWriter } from './nested-column-writer.js'

export interface ArrowBatchWriterOptions {
  /** Body compression; default none. Fluss tables default to ZSTD level 3 (`DEFAULT_COMPRESSION`). */
  readonly compression?: ArrowCompressionInfo
  /** Rows the column buffers are first sized for (they grow on demand and are kept by `reset()`). */
  readonly initialCapacityRows?: number
}

const COMPRESSION_RATIO_IMPROVING_STEP = 0.005
const COMPRESSION_RATIO_DETERIORATE_STEP = 0.05

/**
 * Encodes rows straight into Arrow column buffers (no Arrow library) and emits one Arrow IPC
 * encapsulated RecordBatch message: what a Fluss ARROW log batch carries after its header and
 * change-type vector (no Schema message, no end-of-stream marker).
 *
 * Usage: `addRow()` until `estimatedSizeInBytes()` reaches the batch budget, then `finish()`,
 * then `reset()` to reuse the buffers for the next batch.
 */
export class ArrowBatchWriter {
  private readonly columns: ArrowColumnWriter[]
  private readonly codec: number
  private readonly level: number
  private readonly bufferCount: number
  private readonly nodeCount: number
  private metadataBytes: number | undefined
  private rows = 0
  /** Estimated compressed/uncompressed body ratio, learned like Fluss's ArrowCompressionRatioEstimator. */
  private compressionRatio = 1

  constructor(
    readonly rowType: RowType,
    options: ArrowBatchWriterOptions = {},
  ) {
    const compression = options.compression ?? NO_COMPRESSION
    this.codec = codecOf(compression)
    this.level = compression.level ?? DEFAULT_ZSTD_LEVEL
    const layouts = rowLayouts(rowType)
    const capacity = options.initialCapacityRows ?? 1024
    this.bufferCount = layouts.reduce((sum, l) => sum + l.totalBufferCount, 0)
    this.nodeCount = layouts.reduce((sum, l) => sum + l.nodeCount, 0)
    this.columns = rowType.fields.map((f, i) => createColumnWriter(f.name, f.type, layouts[i], capacity))
  }

  /** Rows added since the last reset. */
  get recordCount(): number {
    return this.rows
  }

  /** Appends a row (values in column order). A row that does not fit the schema is rejected whole. */
  addRow(row: Row): void {
    const columns = this.columns
    if (row.length !== columns.length) {
      throw new FlussError(
        'INVALID_REQUEST',
        `row has ${row.length} values, the schema has ${columns.length} columns`,
      )
    }
    const n = this.rows
    let c = 0
    try {
      for (; c < columns.length; c++) columns[c].write(row[c])
    } catch (e) {
      for (let j = 0; j < c; j++) columns[j].rollback(n)
      throw e
    }
    this.rows = n + 1
  }

  private metadataSize(): number {
    this.metadataBytes ??= recordBatchMetadataSize(this.nodeCount, this.bufferCount, this.codec)
    return this.metadataBytes
  }

  /** Exact size `finish()` would produce without compression. */
  uncompressedSizeInBytes(): number {
    let body = 0
    for (const c of this.columns) body += c.bodySize()
    return 8 + this.metadataSize() + body
  }

  /** Size `finish()` is expected to produce, using the compression ratio seen on earlier batches. */
  estimatedSizeInBytes(): number {
    let body = 0
    for (const c of this.columns) body += c.bodySize()
    const estimatedBody = this.codec === CODEC_NONE ? body : Math.ceil(body * this.compressionRatio)
    return 8 + this.metadataSize() + estimatedBody
  }

  /**
   * Encodes the rows added so far as one RecordBatch message (a new array owned by the caller).
   * With no rows it still returns a valid 0-row message; Fluss log batches with RecordCount 0
   * carry no Arrow message at all, so log writers should not call it then.
   */
  finish(): Uint8Array {
    const pieces: Uint8Array[] = []
    const nodes: number[] = []
    for (const c of this.columns) {
      c.buffers(pieces)
      c.nodes(nodes)
    }
    const prefixes = this.codec === CODEC_NONE ? null : this.compressPieces(pieces)
    const buffers = new Array<number>(pieces.length * 2)
    let body = 0
    for (let i = 0; i < pieces.length; i++) {
      const stored = pieces[i].length === 0 || prefixes === null ? pieces[i].length : 8 + pieces[i].length
      buffers[2 * i] = body
      buffers[2 * i + 1] = stored
      body += pad8(stored)
    }
    const meta = {
      length: this.rows,
      nodeCount: this.nodeCount,
      nodes,
      bufferCount: pieces.length,
      buffers,
    }
    const out = new Uint8Array(
      8 + recordBatchMetadataSize(meta.nodeCount, meta.bufferCount, this.codec) + body,
    )
    const bodyStart = writeRecordBatchHeader(out, 0, { ...meta, codec: this.codec, bodyLength: body })
    const view = new DataView(out.buffer)
    for (let i = 0; i < pieces.length; i++) {
      if (pieces[i].length === 0) continue
      let at = bodyStart + buffers[2 * i]
      if (prefixes !== null) {
        setInt64Number(view, at, prefixes[i])
        at += 8
      }
      out.set(pieces[i], at)
    }
    if (prefixes !== null) this.updateCompressionRatio(body)
    return out
  }

  /** Replaces each non-empty piece by its stored payload; returns the length prefixes (-1 = raw). */
  private compressPieces(pieces: Uint8Array[]): number[] {
    const prefixes = new Array<number>(pieces.length).fill(0)
    for (let i = 0; i < pieces.length; i++) {
      const raw = pieces[i]
      if (raw.length === 0) continue
      const packed = compressPayload(this.codec, this.level, raw)
      if (packed.length < raw.length) {
        pieces[i] = packed
        prefixes[i] = raw.length
      } else {
        prefixes[i] = -1
      }
    }
    return prefixes
  }

  private updateCompressionRatio(storedBody: number): void {
    let raw = 0
    for (const c of this.columns) raw += c.bodySize()
    if (raw === 0) return
    const observed = storedBody / raw
    const current = this.compressionRatio
    if (observed > current)
      this.compressionRatio = Math.max(current + COMPRESSION_RATIO_DETERIORATE_STEP, observed)
    else if (observed < current)
      this.compressionRatio = Math.max(current - COMPRESSION_RATIO_IMPROVING_STEP, observed)
  }

  /** Clears the rows, keeping the allocated buffers for the next batch. */
  reset(): void {
    for (const c of this.columns) c.reset()
    this.rows = 0
  }
}
