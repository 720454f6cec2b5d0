import { Decimal, type Value } from '../row/value.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ColumnLayout } from './column-layout.js'
import { corrupt } from './flatbuf-reader.js'
import { readInt128, readTemporal, utf8 } from './value-decoding.js'

/**
 * A decoded (validated, decompressed) column of a RecordBatch, read in place. Conversions back to
 * core values follow Fluss's `arrow/vectors` readers; sub-millisecond timestamp parts are taken
 * with floor division so pre-1970 values keep a non-negative nano-of-millisecond.
 */
export interface ArrowColumn {
  readonly kind: number
  readonly byteWidth: number
  readonly length: number
  readonly nullCount: number
  /** Null when the column has no nulls (or only nulls, see `allNull`). */
  readonly validity: Uint8Array | null
  readonly allNull: boolean
  /** Data buffer: values, bit-packed booleans, or the bytes of a variable-length column. */
  readonly data: Uint8Array
  readonly view: DataView
  /** Int32 offsets of a variable-length column, or into the child of a List or Map column. */
  readonly offsets: DataView | null
  readonly scale: number
  /** Children of a List (element), Map (entries struct of key and value) or Struct column. */
  readonly children: readonly ArrowColumn[]
}

function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Builds a column from its (uncompressed) buffers, checking every size and offset. */
export function decodeColumn(
  name: string,
  layout: ColumnLayout,
  scale: number,
  length: number,
  nullCount: number,
  buffers: readonly Uint8Array[],
): ArrowColumn {
  const validityBytes = (length + 7) >> 3
  const { validity, allNull } = readValidity(name, length, nullCount, buffers[0])
  const data = buffers[layout.bufferCount - 1]
  let offsets: DataView | null = null
  if (layout.bufferCount === 3) {
    offsets = checkOffsets(name, buffers[1], length, data.length)
  } else {
    const needed = layout.kind === K.BOOL ? validityBytes : length * layout.byteWidth
    if (data.length < needed)
      throw corrupt(`column '${name}': data buffer has ${data.length} bytes, needs ${needed}`)
  }
  return {
    kind: layout.kind,
    byteWidth: layout.byteWidth,
    length,
    nullCount,
    validity,
    allNull,
    data,
    view: dataView(data),
    offsets,
    scale,
    children: [],
  }
}

/** The validity bitmap of a column: null when there are no nulls or when every value is null. */
export function readValidity(
  name: string,
  length: number,
  nullCount: number,
  buffer: Uint8Array,
): { validity: Uint8Array | null; allNull: boolean } {
  if (nullCount === 0) return { validity: null, allNull: false }
  if (buffer.length >= (length + 7) >> 3) return { validity: buffer, allNull: false }
  if (nullCount === length && buffer.length === 0) return { validity: null, allNull: true }
  throw corrupt(`column '${name}': validity buffer has ${buffer.length} bytes, needs ${(length + 7) >> 3}`)
}

/**
 * A List, Map or Struct column over its decoded children; the offsets of a List or Map must stay
 * within its child, and a Struct's children must have a value per row.
 */
export function nestedColumn(
  name: string,
  layout: ColumnLayout,
  length: number,
  nullCount: number,
  buffers: readonly Uint8Array[],
  children: readonly ArrowColumn[],
): ArrowColumn {
  const { validity, allNull } = readValidity(name, length, nullCount, buffers[0])
  let offsets: DataView | null = null
  if (layout.kind === K.STRUCT) {
    for (const [k, c] of children.entries()) {
      if (c.length < length)
        throw corrupt(`column '${name}': field ${k} has ${c.length} values for ${length} rows`)
    }
  } else {
    offsets = checkOffsets(name, buffers[1], length, children[0].length)
    if (offsets === null && length > 0) throw corrupt(`column '${name}': missing offsets`)
  }
  return {
    kind: layout.kind,
    byteWidth: 0,
    length,
    nullCount,
    validity,
    allNull,
    data: EMPTY,
    view: EMPTY_VIEW,
    offsets,
    scale: 0,
    children,
  }
}

const EMPTY = new Uint8Array(0)
const EMPTY_VIEW = new DataView(EMPTY.buffer)

function checkOffsets(name: string, bytes: Uint8Array, length: number, dataLength: number): DataView | null {
  if (length === 0 && bytes.length === 0) return null
  if (bytes.length < (length + 1) * 4) {
    throw corrupt(`column '${name}': offsets buffer has ${bytes.length} bytes, needs ${(length + 1) * 4}`)
  }
  const view = dataView(bytes)
  let previous = view.getInt32(0, true)
  if (previous < 0) throw corrupt(`column '${name}': negative first offset ${previous}`)
  for (let i = 1; i <= length; i++) {
    const next = view.getInt32(i * 4, true)
    if (next < previous) throw corrupt(`column '${name}': offsets decrease at row ${i - 1}`)
    previous = next
  }
  if (previous > dataLength)
    throw corrupt(`column '${name}': last offset ${previous} exceeds the ${dataLength}-byte data buffer`)
  return view
}

export function isNull(c: ArrowColumn, i: number): boolean {
  return c.allNull || (c.validity !== null && (c.validity[i >> 3] & (1 << (i & 7))) === 0)
}

/** The core value at row `i` (the caller checks the index). */
export function readValue(c: ArrowColumn, i: number): Value {
  if (isNull(c, i)) return null
  const view = c.view
  switch (c.kind) {
    case K.LIST: {
      const offsets = c.offsets as DataView
      const start = offsets.getInt32(i * 4, true)
      const out = new Array<Value>(offsets.getInt32(i * 4 + 4, true) - start)
      for (let j = 0; j < out.length; j++) out[j] = readValue(c.children[0], start + j)
      return out
    }
    case K.MAP: {
      const offsets = c.offsets as DataView
      const [key, value] = c.children[0].children
      const out = new Map<Value, Value>()
      for (let j = offsets.getInt32(i * 4, true); j < offsets.getInt32(i * 4 + 4, true); j++)
        out.set(readValue(key, j), readValue(value, j))
      return out
    }
    case K.STRUCT:
      return c.children.map(child => readValue(child, i))
    case K.BOOL:
      return ((c.data[i >> 3] >> (i & 7)) & 1) === 1
    case K.INT8:
      return view.getInt8(i)
    case K.INT16:
      return view.getInt16(i * 2, true)
    case K.INT32:
    case K.DATE_DAY:
    case K.TIME_MILLI:
      return view.getInt32(i * 4, true)
    case K.INT64:
      return view.getBigInt64(i * 8, true)
    case K.FLOAT32:
      return view.getFloat32(i * 4, true)
    case K.FLOAT64:
      return view.getFloat64(i * 8, true)
    case K.UTF8:
    case K.BINARY: {
      const offsets = c.offsets as DataView
      const start = offsets.getInt32(i * 4, true)
      const end = offsets.getInt32(i * 4 + 4, true)
      return c.kind === K.UTF8 ? utf8(c.data, start, end) : c.data.slice(start, end)
    }
    case K.FIXED_BINARY:
      return c.data.slice(i * c.byteWidth, (i + 1) * c.byteWidth)
    case K.DECIMAL128:
      return new Decimal(readInt128(view, i * 16), c.scale)
    default:
      return readTemporal(c, i)
  }
}
