import { Decimal, Timestamp, type Value } from '../row/value.js'
import { type ColumnLayout, ColumnKind as K } from './arrow-type.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number, type Int64Split, splitInt64 } from './int64.js'

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
  /** Int32 offsets of a variable-length column. */
  readonly offsets: DataView | null
  readonly scale: number
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
  let validity: Uint8Array | null = null
  let allNull = false
  if (nullCount > 0) {
    if (buffers[0].length >= validityBytes) validity = buffers[0]
    else if (nullCount === length && buffers[0].length === 0) allNull = true
    else
      throw corrupt(
        `column '${name}': validity buffer has ${buffers[0].length} bytes, needs ${validityBytes}`,
      )
  }
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
  }
}

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

const decoder = new TextDecoder()
const split: Int64Split = { quotient: 0, remainder: 0 }

function utf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 24) return decoder.decode(bytes.subarray(start, end))
  let s = ''
  for (let i = start; i < end; i++) {
    const c = bytes[i]
    if (c >= 0x80) return decoder.decode(bytes.subarray(start, end))
    s += String.fromCharCode(c)
  }
  return s
}

/** The core value at row `i` (the caller checks the index). */
export function readValue(c: ArrowColumn, i: number): Value {
  if (isNull(c, i)) return null
  const view = c.view
  switch (c.kind) {
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

function readInt128(view: DataView, at: number): bigint {
  const low = view.getBigInt64(at, true)
  const high1 = view.getInt32(at + 8, true)
  const high2 = view.getInt32(at + 12, true)
  if (high1 === high2 && (high1 === 0 ? low >= 0n : high1 === -1 && low < 0n)) return low
  return (view.getBigInt64(at + 8, true) << 64n) | view.getBigUint64(at, true)
}

function readTemporal(c: ArrowColumn, i: number): Value {
  const view = c.view
  switch (c.kind) {
    case K.TIME_SECOND:
      return view.getInt32(i * 4, true) * 1000
    case K.TIME_MICRO:
    case K.TIME_NANO: {
      const value = getInt64Number(view, i * 8)
      const millis = Math.trunc(value / (c.kind === K.TIME_MICRO ? 1000 : 1_000_000))
      if (!Number.isFinite(millis) || (millis | 0) !== millis)
        throw corrupt(`TIME value at row ${i} is out of range`)
      return millis
    }
    case K.TIMESTAMP_SECOND:
    case K.TIMESTAMP_MILLI: {
      const value = getInt64Number(view, i * 8)
      const millis = c.kind === K.TIMESTAMP_SECOND ? value * 1000 : value
      if (!Number.isSafeInteger(millis)) throw corrupt(`TIMESTAMP value at row ${i} is out of range`)
      return new Timestamp(millis, 0)
    }
    default: {
      const micro = c.kind === K.TIMESTAMP_MICRO
      if (!splitInt64(view, i * 8, micro ? 1000 : 1_000_000, split)) {
        throw corrupt(`TIMESTAMP value at row ${i} is out of range`)
      }
      return new Timestamp(split.quotient, micro ? split.remainder * 1000 : split.remainder)
    }
  }
}
