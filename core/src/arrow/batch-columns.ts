import type { DataType, RowType } from '../types/data-type.js'
import { type ColumnLayout, rowLayouts } from './column-layout.js'
import { type ArrowColumn, decodeColumn, nestedColumn } from './column-reader.js'
import { decompressPiece } from './compression.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number } from './int64.js'
import { bufferRegion, CODEC_NONE, type RecordBatchHeader } from './message.js'

/**
 * Decodes the columns of a RecordBatch against a Fluss row type: the field nodes and buffers of
 * each column and its children (depth-first), checked against the layout, decompressed and bounds
 * checked. Top-level columns must have the batch's length and respect NOT NULL; a child may hold
 * nulls in a NOT NULL field (the slots under a null struct) and its length follows its parent.
 */
export function decodeBatchColumns(
  message: Uint8Array,
  view: DataView,
  header: RecordBatchHeader,
  rowType: RowType,
  maxUncompressedBytes: number,
): ArrowColumn[] {
  const layouts = rowLayouts(rowType)
  const expectedNodes = layouts.reduce((sum, l) => sum + l.nodeCount, 0)
  const expectedBuffers = layouts.reduce((sum, l) => sum + l.totalBufferCount, 0)
  if (header.nodeCount !== expectedNodes) {
    throw corrupt(`batch has ${header.nodeCount} field nodes, the row type needs ${expectedNodes}`)
  }
  if (header.bufferCount !== expectedBuffers) {
    throw corrupt(`batch has ${header.bufferCount} buffers, the row type needs ${expectedBuffers}`)
  }
  const pieces = bufferPieces(message, view, header)
  if (header.codec !== CODEC_NONE) checkUncompressedTotal(pieces, maxUncompressedBytes)
  const decoder = new FieldDecoder(view, header, pieces, maxUncompressedBytes)
  return rowType.fields.map((f, c) => {
    const column = decoder.decode(f.name, f.type, layouts[c])
    if (column.length !== header.length)
      throw corrupt(`column '${f.name}' has ${column.length} values in a batch of ${header.length}`)
    if (column.nullCount > 0 && !f.type.nullable)
      throw corrupt(`NOT NULL column '${f.name}' has ${column.nullCount} nulls`)
    return column
  })
}

class FieldDecoder {
  private node = 0
  private buffer = 0

  constructor(
    private readonly view: DataView,
    private readonly header: RecordBatchHeader,
    private readonly pieces: readonly Uint8Array[],
    private readonly maxUncompressedBytes: number,
  ) {}

  decode(name: string, type: DataType, layout: ColumnLayout): ArrowColumn {
    const at = this.header.nodes + 16 * this.node++
    const length = getInt64Number(this.view, at)
    const nullCount = getInt64Number(this.view, at + 8)
    if (!(length >= 0 && length <= 0x7fffffff)) throw corrupt(`column '${name}' has length ${length}`)
    if (!(nullCount >= 0 && nullCount <= length))
      throw corrupt(`column '${name}' has null count ${nullCount}`)
    const buffers = this.pieces.slice(this.buffer, this.buffer + layout.bufferCount)
    this.buffer += layout.bufferCount
    if (this.header.codec !== CODEC_NONE) {
      for (let i = 0; i < buffers.length; i++)
        buffers[i] = decompressPiece(this.header.codec, buffers[i], this.maxUncompressedBytes)
    }
    if (layout.children.length === 0) {
      const scale = type.type === 'DECIMAL' ? type.scale : 0
      return decodeColumn(name, layout, scale, length, nullCount, buffers)
    }
    const children = layout.children.map(c => this.decode(`${name}.${c.name}`, c.type, c.layout))
    return nestedColumn(name, layout, length, nullCount, buffers, children)
  }
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
