import { FlussError } from '../errors/index.js'
import type { RowType } from '../types/data-type.js'
import { rowLayouts } from './column-layout.js'
import { pad8 } from './column-writer.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number } from './int64.js'
import {
  bufferRegion,
  type RecordBatchHeader,
  readRecordBatchHeader,
  recordBatchMetadataSize,
  writeRecordBatchHeader,
} from './message.js'

/**
 * Zero-decode column projection of a RecordBatch message, as Fluss's `FileLogProjection` does on
 * projected fetches: the header is rewritten with only the selected field nodes and buffers, and
 * the selected buffers are copied unchanged (compressed ones too, since compression is per
 * buffer). A nested column (List, Map, Struct) takes the nodes and buffers of all its descendants;
 * only top-level columns can be selected. One output allocation per batch; adjacent buffers are
 * copied in one run.
 */
export class ArrowProjection {
  readonly projectedRowType: RowType
  private readonly nodeCount: number
  private readonly bufferCount: number
  private readonly nodeIndexes: Int32Array
  /** Whether each projected node is a top-level column (its length must be the batch's). */
  private readonly topLevel: Uint8Array
  private readonly bufferIndexes: Int32Array
  private readonly nodes: Float64Array
  private readonly buffers: Float64Array
  private readonly sourceOffsets: Float64Array
  private readonly region = { offset: 0, length: 0 }

  constructor(rowType: RowType, projectedFields: readonly number[]) {
    checkProjection(rowType.fields.length, projectedFields)
    const layouts = rowLayouts(rowType)
    this.projectedRowType = { ...rowType, fields: projectedFields.map(i => rowType.fields[i]) }
    const firstBuffer: number[] = []
    const firstNode: number[] = []
    let buffersBefore = 0
    let nodesBefore = 0
    for (const l of layouts) {
      firstBuffer.push(buffersBefore)
      firstNode.push(nodesBefore)
      buffersBefore += l.totalBufferCount
      nodesBefore += l.nodeCount
    }
    this.bufferCount = buffersBefore
    this.nodeCount = nodesBefore
    const buffers: number[] = []
    const nodes: number[] = []
    const topLevel: number[] = []
    for (const f of projectedFields) {
      for (let k = 0; k < layouts[f].totalBufferCount; k++) buffers.push(firstBuffer[f] + k)
      for (let k = 0; k < layouts[f].nodeCount; k++) {
        nodes.push(firstNode[f] + k)
        topLevel.push(k === 0 ? 1 : 0)
      }
    }
    this.nodeIndexes = Int32Array.from(nodes)
    this.topLevel = Uint8Array.from(topLevel)
    this.bufferIndexes = Int32Array.from(buffers)
    this.nodes = new Float64Array(2 * nodes.length)
    this.buffers = new Float64Array(2 * buffers.length)
    this.sourceOffsets = new Float64Array(buffers.length)
  }

  /** Reads the header and fills the scratch arrays; returns the projected body length. */
  private plan(view: DataView): { header: RecordBatchHeader; body: number } {
    const header = readRecordBatchHeader(view)
    if (header.nodeCount !== this.nodeCount) {
      throw corrupt(`batch has ${header.nodeCount} field nodes, the row type needs ${this.nodeCount}`)
    }
    if (header.bufferCount !== this.bufferCount) {
      throw corrupt(`batch has ${header.bufferCount} buffers, the row type needs ${this.bufferCount}`)
    }
    for (let k = 0; k < this.nodeIndexes.length; k++) {
      const at = header.nodes + 16 * this.nodeIndexes[k]
      const length = getInt64Number(view, at)
      const nullCount = getInt64Number(view, at + 8)
      const badLength = this.topLevel[k] === 1 ? length !== header.length : !(length >= 0)
      if (badLength || !(nullCount >= 0 && nullCount <= length)) {
        throw corrupt(
          `field node ${this.nodeIndexes[k]} (${length}, ${nullCount}) does not fit a batch of ${header.length}`,
        )
      }
      this.nodes[2 * k] = length
      this.nodes[2 * k + 1] = nullCount
    }
    let body = 0
    for (let k = 0; k < this.bufferIndexes.length; k++) {
      bufferRegion(view, header, this.bufferIndexes[k], this.region)
      this.sourceOffsets[k] = this.region.offset
      this.buffers[2 * k] = body
      this.buffers[2 * k + 1] = this.region.length
      body += pad8(this.region.length)
    }
    return { header, body }
  }

  /** Size in bytes of the projected message, without building it. */
  projectedSizeInBytes(message: Uint8Array): number {
    const { header, body } = this.plan(viewOf(message))
    return (
      8 + recordBatchMetadataSize(this.nodeIndexes.length, this.bufferIndexes.length, header.codec) + body
    )
  }

  project(message: Uint8Array): Uint8Array {
    const { header, body } = this.plan(viewOf(message))
    const bufferCount = this.bufferIndexes.length
    const meta = recordBatchMetadataSize(this.nodeIndexes.length, bufferCount, header.codec)
    const out = new Uint8Array(8 + meta + body)
    const outBody = writeRecordBatchHeader(out, 0, {
      length: header.length,
      nodeCount: this.nodeIndexes.length,
      nodes: this.nodes,
      bufferCount,
      buffers: this.buffers,
      codec: header.codec,
      bodyLength: body,
    })
    const bodyStart = header.frame.bodyStart
    const bodyEnd = header.frame.end
    let runSource = 0
    let runEnd = 0
    let runTarget = 0
    for (let k = 0; k < bufferCount; k++) {
      const source = bodyStart + this.sourceOffsets[k]
      const target = outBody + this.buffers[2 * k]
      const length = Math.min(pad8(this.buffers[2 * k + 1]), bodyEnd - source)
      if (source !== runEnd || target !== runTarget + (runEnd - runSource)) {
        if (runEnd > runSource) out.set(message.subarray(runSource, runEnd), runTarget)
        runSource = source
        runEnd = source
        runTarget = target
      }
      runEnd += length
    }
    if (runEnd > runSource) out.set(message.subarray(runSource, runEnd), runTarget)
    return out
  }
}

function viewOf(message: Uint8Array): DataView {
  return new DataView(message.buffer, message.byteOffset, message.byteLength)
}

/** Projected field indexes must be ascending, unique and within the row type (Fluss's rules). */
function checkProjection(fieldCount: number, fields: readonly number[]): void {
  let previous = -1
  for (const i of fields) {
    if (!Number.isInteger(i) || i < 0) {
      throw new FlussError('INVALID_COLUMN_PROJECTION', `projected field index ${i} is not a valid index`)
    }
    if (i < previous) {
      throw new FlussError(
        'INVALID_COLUMN_PROJECTION',
        `the projection indexes should be in field order, but are [${fields}]`,
      )
    }
    if (i === previous) {
      throw new FlussError(
        'INVALID_COLUMN_PROJECTION',
        `the projection indexes should not contain duplicated fields, but are [${fields}]`,
      )
    }
    if (i >= fieldCount) {
      throw new FlussError(
        'INVALID_COLUMN_PROJECTION',
        `projected fields [${fields}] are out of bound for a schema with ${fieldCount} fields`,
      )
    }
    previous = i
  }
}

/** The row type holding only the projected fields, for reading a projected batch. */
export function projectRowType(rowType: RowType, projectedFields: readonly number[]): RowType {
  checkProjection(rowType.fields.length, projectedFields)
  return { ...rowType, fields: projectedFields.map(i => rowType.fields[i]) }
}

const plans = new WeakMap<RowType, Map<string, ArrowProjection>>()
const MAX_PLANS_PER_ROW_TYPE = 64

function planFor(rowType: RowType, projectedFields: readonly number[]): ArrowProjection {
  let byFields = plans.get(rowType)
  if (byFields === undefined) {
    byFields = new Map()
    plans.set(rowType, byFields)
  }
  const key = projectedFields.join(',')
  let plan = byFields.get(key)
  if (plan === undefined) {
    plan = new ArrowProjection(rowType, projectedFields)
    if (byFields.size >= MAX_PLANS_PER_ROW_TYPE) byFields.clear()
    byFields.set(key, plan)
  }
  return plan
}

/** Projects one RecordBatch message to the given fields (plans are cached per row type object). */
export function projectRecordBatch(
  message: Uint8Array,
  rowType: RowType,
  projectedFields: readonly number[],
): Uint8Array {
  return planFor(rowType, projectedFields).project(message)
}

/** The size `projectRecordBatch` would produce, computed from the header alone. */
export function projectedRecordBatchSize(
  message: Uint8Array,
  rowType: RowType,
  projectedFields: readonly number[],
): number {
  return planFor(rowType, projectedFields).projectedSizeInBytes(message)
}
