import { corrupt, FbReader } from './flatbuf-reader.js'
import { type FbField, FbWriter, REF } from './flatbuf-writer.js'
import { getInt64Number } from './int64.js'

/**
 * Arrow IPC encapsulated messages (Message.fbs): `0xFFFFFFFF`, int32 metadata length (padded so
 * the body starts 8-aligned), the flatbuffer `Message`, then the body. This file reads and writes
 * the framing and the RecordBatch header; schema.ts handles Schema headers.
 */

export const CONTINUATION = 0xffffffff
/** MetadataVersion.V5, what current Arrow writers (and Fluss) emit; V4 is accepted on read. */
export const METADATA_V5 = 4
const METADATA_V4 = 3

export const MessageHeaderType = { Schema: 1, DictionaryBatch: 2, RecordBatch: 3 } as const

/** BodyCompression codec ids; -1 means the body is not compressed. */
export const CODEC_LZ4_FRAME = 0
export const CODEC_ZSTD = 1
export const CODEC_NONE = -1

export interface MessageFrame {
  /** Header type (MessageHeaderType) and its table in `fb`. */
  headerType: number
  header: number
  fb: FbReader
  bodyStart: number
  bodyLength: number
  /** Offset just after the message body. */
  end: number
}

/**
 * Parses the message starting at `pos`. Returns null at an end-of-stream marker (metadata length
 * 0) or when `pos` is at the end. Legacy framing without the continuation marker is accepted.
 */
export function readMessageFrame(view: DataView, pos: number): MessageFrame | null {
  const available = view.byteLength - pos
  if (available === 0) return null
  if (available < 4) throw corrupt(`message prefix truncated (${available} bytes)`)
  let metadataLength = view.getInt32(pos, true)
  let metadataStart = pos + 4
  if (metadataLength === -1) {
    if (available < 8) throw corrupt('message length truncated')
    metadataLength = view.getInt32(pos + 4, true)
    metadataStart = pos + 8
  }
  if (metadataLength === 0) return null
  if (metadataLength < 0 || metadataLength > view.byteLength - metadataStart) {
    throw corrupt(
      `metadata length ${metadataLength} exceeds the ${view.byteLength - metadataStart} bytes left`,
    )
  }
  const fb = new FbReader(view, metadataStart, metadataStart + metadataLength)
  const message = fb.root()
  const version = fb.i16(message, 0, 0)
  if (version < METADATA_V4 || version > METADATA_V5) throw corrupt(`unsupported metadata version ${version}`)
  const headerType = fb.u8(message, 1, 0)
  const header = fb.tableRef(message, 2, 'message header')
  if (header < 0) throw corrupt('message has no header')
  const bodyLength = fb.i64(message, 3, 0)
  const bodyStart = metadataStart + metadataLength
  if (bodyLength < 0 || bodyLength > view.byteLength - bodyStart) {
    throw corrupt(`body length ${bodyLength} exceeds the ${view.byteLength - bodyStart} bytes left`)
  }
  return { headerType, header, fb, bodyStart, bodyLength, end: bodyStart + bodyLength }
}

/** A parsed RecordBatch header. Node i is at `nodes + 16 * i`, buffer i at `buffers + 16 * i`. */
export interface RecordBatchHeader {
  readonly frame: MessageFrame
  readonly length: number
  readonly nodes: number
  readonly nodeCount: number
  readonly buffers: number
  readonly bufferCount: number
  readonly codec: number
}

/** Parses one RecordBatch message at `pos` (Fluss's records section holds exactly one). */
export function readRecordBatchHeader(view: DataView, pos = 0): RecordBatchHeader {
  const frame = readMessageFrame(view, pos)
  if (frame === null) throw corrupt('expected a RecordBatch message, found end of stream')
  if (frame.headerType !== MessageHeaderType.RecordBatch) {
    throw corrupt(`expected a RecordBatch message, found header type ${frame.headerType}`)
  }
  const fb = frame.fb
  const batch = frame.header
  const length = fb.i64(batch, 0, 0)
  if (length < 0 || length > 0x7fffffff) throw corrupt(`record count ${length} is out of range`)
  const nodes = fb.vector(batch, 1, 16, 'field nodes')
  const buffers = fb.vector(batch, 2, 16, 'buffers')
  let codec = CODEC_NONE
  const compression = fb.tableRef(batch, 3, 'body compression')
  if (compression >= 0) {
    codec = fb.u8(compression, 0, CODEC_LZ4_FRAME)
    if (codec !== CODEC_LZ4_FRAME && codec !== CODEC_ZSTD) throw corrupt(`unknown compression codec ${codec}`)
    if (fb.u8(compression, 1, 0) !== 0) throw corrupt('unsupported body compression method')
  }
  return {
    frame,
    length,
    nodes: nodes?.data ?? 0,
    nodeCount: nodes?.count ?? 0,
    buffers: buffers?.data ?? 0,
    bufferCount: buffers?.count ?? 0,
    codec,
  }
}

/** Offset and length of buffer `i`, checked against the body. */
export function bufferRegion(
  view: DataView,
  header: RecordBatchHeader,
  i: number,
  out: { offset: number; length: number },
): void {
  const at = header.buffers + 16 * i
  const offset = getInt64Number(view, at)
  const length = getInt64Number(view, at + 8)
  const bodyLength = header.frame.bodyLength
  if (!(offset >= 0 && length >= 0 && offset <= bodyLength && length <= bodyLength - offset)) {
    throw corrupt(`buffer ${i} [${offset}, +${length}) lies outside the ${bodyLength}-byte body`)
  }
  out.offset = offset
  out.length = length
}

/** What a RecordBatch header holds; nodes and buffers are flat (length, nullCount) / (offset, length) pairs. */
export interface RecordBatchMeta {
  length: number
  nodeCount: number
  nodes: ArrayLike<number>
  bufferCount: number
  buffers: ArrayLike<number>
  codec: number
  bodyLength: number
}

function layoutRecordBatch(w: FbWriter, m: RecordBatchMeta): void {
  const root = w.rootSlot()
  const messageRefs: number[] = []
  const message = w.table(
    [
      { slot: 0, size: 2, value: METADATA_V5 },
      { slot: 1, size: 1, value: MessageHeaderType.RecordBatch },
      { slot: 2, size: 4, value: REF },
      { slot: 3, size: 8, value: m.bodyLength },
    ],
    messageRefs,
  )
  w.patch(root, message)
  const fields: FbField[] = [
    { slot: 0, size: 8, value: m.length },
    { slot: 1, size: 4, value: REF },
    { slot: 2, size: 4, value: REF },
  ]
  if (m.codec !== CODEC_NONE) fields.push({ slot: 3, size: 4, value: REF })
  const batchRefs: number[] = []
  w.patch(messageRefs[0], w.table(fields, batchRefs))
  if (m.codec !== CODEC_NONE) {
    const compression = w.table([
      { slot: 0, size: 1, value: m.codec },
      { slot: 1, size: 1, value: 0 },
    ])
    w.patch(batchRefs[2], compression)
  }
  structs(w, batchRefs[0], m.nodeCount, m.nodes)
  structs(w, batchRefs[1], m.bufferCount, m.buffers)
  w.alignTo(8)
}

function structs(w: FbWriter, ref: number, count: number, pairs: ArrayLike<number>): void {
  const v = w.structVector(count, 16)
  w.patch(ref, v.vector)
  for (let i = 0; i < count; i++) {
    w.setScalar(v.data + 16 * i, 8, pairs[2 * i])
    w.setScalar(v.data + 16 * i + 8, 8, pairs[2 * i + 1])
  }
}

const metadataSizes = new Map<string, number>()

/** Size of the padded flatbuffer of a RecordBatch header (excluding the 8-byte prefix). */
export function recordBatchMetadataSize(nodeCount: number, bufferCount: number, codec: number): number {
  const key = `${nodeCount}/${bufferCount}/${codec === CODEC_NONE ? 0 : 1}`
  let size = metadataSizes.get(key)
  if (size === undefined) {
    const w = new FbWriter(undefined, 0, true)
    layoutRecordBatch(w, { length: 0, nodeCount, nodes: [], bufferCount, buffers: [], codec, bodyLength: 0 })
    size = w.pos
    if (metadataSizes.size < 4096) metadataSizes.set(key, size)
  }
  return size
}

/**
 * Writes the prefix and RecordBatch header into `out` at `pos` (which must have room for
 * `8 + recordBatchMetadataSize(...)` bytes); returns the offset where the body starts.
 */
export function writeRecordBatchHeader(out: Uint8Array, pos: number, m: RecordBatchMeta): number {
  const size = recordBatchMetadataSize(m.nodeCount, m.bufferCount, m.codec)
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
  view.setUint32(pos, CONTINUATION, true)
  view.setInt32(pos + 4, size, true)
  const w = new FbWriter(out, pos + 8)
  layoutRecordBatch(w, m)
  return pos + 8 + size
}
