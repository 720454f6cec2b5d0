import { type DataType, nullable, type RowType } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { rowLayouts } from './column-layout.js'
import { pad8 } from './column-writer.js'
import { getInt64Number } from './int64.js'
import {
  bufferRegion,
  CODEC_NONE,
  type RecordBatchHeader,
  readRecordBatchHeader,
  recordBatchMetadataSize,
  writeRecordBatchHeader,
} from './message.js'
import { projectRecordBatch } from './projection.js'

/**
 * A column of a projected batch: a column of the source batch (its position), or a column the
 * source lacks, read as all NULL (its type).
 */
export type ProjectedColumn = number | { readonly nullOf: DataType; readonly name: string }

/** Per uncompressed buffer stored in a compressed body: int64 -1, then the bytes as they are. */
const NO_COMPRESSION_PREFIX = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])

/**
 * Projects a RecordBatch message onto `columns`, in that order: source columns keep their buffers
 * as they are (compressed ones too; no value is decoded), and columns the source lacks (added by a
 * later schema) are filled in as all-NULL columns of their type. This is how a batch written under
 * an older schema is served to a reader that asked for a column added since: the reader decodes
 * every batch with one row type. Source positions must ascend; null columns may go anywhere.
 */
export function projectWithNullColumns(
  message: Uint8Array,
  sourceRowType: RowType,
  columns: readonly ProjectedColumn[],
): Uint8Array {
  const sourcePositions = columns.filter((c): c is number => typeof c === 'number')
  const projected = projectRecordBatch(message, sourceRowType, sourcePositions)
  if (sourcePositions.length === columns.length) return projected
  const view = new DataView(projected.buffer, projected.byteOffset, projected.byteLength)
  const header = readRecordBatchHeader(view)
  const nullFields = columns.flatMap(c =>
    typeof c === 'number' ? [] : [{ name: c.name, type: nullable(c.nullOf), fieldId: -1 }],
  )
  const nullRowType: RowType = { type: 'ROW', nullable: false, fields: nullFields }
  const nulls = nullBatch(nullRowType, header.length)
  const nullView = new DataView(nulls.buffer, nulls.byteOffset, nulls.byteLength)
  const nullHeader = readRecordBatchHeader(nullView)
  const parts = {
    projected: columnParts(
      view,
      header,
      rowLayouts({ ...sourceRowType, fields: sourcePositions.map(p => sourceRowType.fields[p]) }),
    ),
    nulls: columnParts(nullView, nullHeader, rowLayouts(nullRowType)),
  }
  const compressed = header.codec !== CODEC_NONE
  const nodes: number[] = []
  const buffers: number[] = []
  const pieces: Uint8Array[] = []
  let body = 0
  let s = 0
  let n = 0
  for (const c of columns) {
    const fromSource = typeof c === 'number'
    const part = fromSource ? parts.projected[s++] : parts.nulls[n++]
    const bytes = fromSource ? projected : nulls
    const bodyStart = (fromSource ? header : nullHeader).frame.bodyStart
    nodes.push(...part.nodes)
    for (const b of part.buffers) {
      let piece = bytes.subarray(bodyStart + b.offset, bodyStart + b.offset + b.length)
      if (!fromSource && compressed && piece.length > 0) {
        const prefixed = new Uint8Array(8 + piece.length)
        prefixed.set(NO_COMPRESSION_PREFIX, 0)
        prefixed.set(piece, 8)
        piece = prefixed
      }
      buffers.push(body, piece.length)
      pieces.push(piece)
      body += pad8(piece.length)
    }
  }
  const nodeCount = nodes.length / 2
  const bufferCount = buffers.length / 2
  const out = new Uint8Array(8 + recordBatchMetadataSize(nodeCount, bufferCount, header.codec) + body)
  const outBody = writeRecordBatchHeader(out, 0, {
    length: header.length,
    nodeCount,
    nodes,
    bufferCount,
    buffers,
    codec: header.codec,
    bodyLength: body,
  })
  for (let i = 0; i < pieces.length; i++) out.set(pieces[i], outBody + buffers[2 * i])
  return out
}

interface ColumnPart {
  /** (length, nullCount) pairs of the column's field nodes. */
  readonly nodes: number[]
  readonly buffers: { offset: number; length: number }[]
}

/** The field nodes and buffers of each top-level column of a batch. */
function columnParts(
  view: DataView,
  header: RecordBatchHeader,
  layouts: ReturnType<typeof rowLayouts>,
): ColumnPart[] {
  const out: ColumnPart[] = []
  let node = 0
  let buffer = 0
  for (const layout of layouts) {
    const nodes: number[] = []
    for (let k = 0; k < layout.nodeCount; k++, node++) {
      const at = header.nodes + 16 * node
      nodes.push(getInt64Number(view, at), getInt64Number(view, at + 8))
    }
    const buffers: { offset: number; length: number }[] = []
    for (let k = 0; k < layout.totalBufferCount; k++, buffer++) {
      const region = { offset: 0, length: 0 }
      bufferRegion(view, header, buffer, region)
      buffers.push(region)
    }
    out.push({ nodes, buffers })
  }
  return out
}

const nullBatches = new Map<string, Uint8Array>()
const MAX_NULL_BATCHES = 64

/** An uncompressed batch of `rows` all-NULL rows of `rowType` (kept per row type and size). */
function nullBatch(rowType: RowType, rows: number): Uint8Array {
  const key = `${rows}:${JSON.stringify(rowType.fields.map(f => f.type))}`
  let batch = nullBatches.get(key)
  if (batch === undefined) {
    const writer = new ArrowBatchWriter(rowType, { initialCapacityRows: Math.max(1, rows) })
    const row = rowType.fields.map(() => null)
    for (let i = 0; i < rows; i++) writer.addRow(row)
    batch = writer.finish()
    if (nullBatches.size >= MAX_NULL_BATCHES) nullBatches.clear()
    nullBatches.set(key, batch)
  }
  return batch
}
