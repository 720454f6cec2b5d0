import { FlussError } from '../errors/index.js'
import { type DataType, typeToString } from '../types/data-type.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ColumnLayout } from './column-layout.js'
import type { ArrowColumn } from './column-reader.js'

/**
 * Buffer-level conversions of one Arrow column into the representation a lake column needs,
 * without turning values into JS objects: integers widened to int32, TIME and TIMESTAMP units
 * rescaled to microseconds (Iceberg's unit), every other column passed through as it is.
 */

const TWO_32 = 4294967296
const EMPTY = new Uint8Array(0)

/**
 * The buffers of one output column (validity, [offsets,] data; validity, [offsets] for a List, Map
 * or Struct level), its null count, and for nested columns its length and children.
 */
export interface LakeColumnBuffers {
  readonly buffers: readonly Uint8Array[]
  readonly nullCount: number
  /** The number of values (the batch's row count when absent). */
  readonly length?: number
  /** Children of a List, Map or Struct column, in layout order. */
  readonly children?: readonly LakeColumnBuffers[]
}

type Converter = (c: ArrowColumn, buffers: readonly Uint8Array[], name: string) => LakeColumnBuffers

function unsupported(name: string, from: DataType, to: DataType): FlussError {
  return new FlussError(
    'INVALID_REQUEST',
    `column '${name}' cannot be written as ${typeToString(to)} from ${typeToString(from)}`,
  )
}

/** A view of `bytes` starting at an 8-aligned address (a copy when it is not). */
function aligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes)
}

function isValid(c: ArrowColumn, i: number): boolean {
  return !c.allNull && (c.validity === null || (c.validity[i >> 3] & (1 << (i & 7))) !== 0)
}

const passThrough: Converter = (c, buffers) => ({ buffers, nullCount: c.nullCount })

function widenInt(c: ArrowColumn, buffers: readonly Uint8Array[]): LakeColumnBuffers {
  const src = aligned(buffers[1])
  const n = c.length
  const out = new Int32Array(n)
  if (c.kind === K.INT8) {
    const v = new Int8Array(src.buffer, src.byteOffset, n)
    for (let i = 0; i < n; i++) out[i] = v[i]
  } else {
    const v = new Int16Array(src.buffer, src.byteOffset, n)
    for (let i = 0; i < n; i++) out[i] = v[i]
  }
  return { buffers: [buffers[0], new Uint8Array(out.buffer)], nullCount: c.nullCount }
}

/**
 * int64 values multiplied by `factor` (at most 1e6), exactly, on 32-bit words. A product that
 * leaves the int64 range is an error for a valid value and becomes 0 in a null slot.
 */
/** An INT8/16/32 column as INT64 (a column widened to BIGINT after the batch was written). */
function widenToInt64(c: ArrowColumn, buffers: readonly Uint8Array[]): LakeColumnBuffers {
  const src = aligned(buffers[1])
  const n = c.length
  const v =
    c.kind === K.INT8
      ? new Int8Array(src.buffer, src.byteOffset, n)
      : c.kind === K.INT16
        ? new Int16Array(src.buffer, src.byteOffset, n)
        : new Int32Array(src.buffer, src.byteOffset, n)
  const out = new BigInt64Array(n)
  for (let i = 0; i < n; i++) out[i] = BigInt(v[i])
  return { buffers: [buffers[0], new Uint8Array(out.buffer)], nullCount: c.nullCount }
}

/** A FLOAT32 column as FLOAT64 (FLOAT widened to DOUBLE). */
function widenToFloat64(c: ArrowColumn, buffers: readonly Uint8Array[]): LakeColumnBuffers {
  const src = aligned(buffers[1])
  const v = new Float32Array(src.buffer, src.byteOffset, c.length)
  return { buffers: [buffers[0], new Uint8Array(Float64Array.from(v).buffer)], nullCount: c.nullCount }
}

function scaleInt64(c: ArrowColumn, src: Uint8Array, factor: number, name: string): Uint8Array {
  const n = c.length
  const s = aligned(src)
  const lo = new Uint32Array(s.buffer, s.byteOffset, 2 * n)
  const hi = new Int32Array(s.buffer, s.byteOffset, 2 * n)
  const out = new Uint32Array(2 * n)
  const outHi = new Int32Array(out.buffer)
  for (let i = 0; i < n; i++) {
    const low = lo[2 * i] * factor
    const carry = Math.floor(low / TWO_32)
    const high = hi[2 * i + 1] * factor + carry
    if (high < -2147483648 || high > 2147483647) {
      if (isValid(c, i)) throw overflow(name, i)
      continue
    }
    out[2 * i] = low - carry * TWO_32
    outHi[2 * i + 1] = high
  }
  return new Uint8Array(out.buffer)
}

/** int64 values floor-divided by 1000 (nanoseconds to microseconds). */
function divideInt64By1000(c: ArrowColumn, src: Uint8Array): Uint8Array {
  const n = c.length
  const s = aligned(src)
  const v = new BigInt64Array(s.buffer, s.byteOffset, n)
  const out = new BigInt64Array(n)
  for (let i = 0; i < n; i++) {
    const x = v[i]
    const q = x / 1000n
    out[i] = x < 0n && q * 1000n !== x ? q - 1n : q
  }
  return new Uint8Array(out.buffer)
}

/** int32 values widened to int64 and multiplied by `factor` (exact: |int32 * 1e6| < 2^53). */
function int32ToScaledInt64(c: ArrowColumn, src: Uint8Array, factor: number): Uint8Array {
  const n = c.length
  const s = aligned(src)
  const v = new Int32Array(s.buffer, s.byteOffset, n)
  const out = new Uint32Array(2 * n)
  const outHi = new Int32Array(out.buffer)
  for (let i = 0; i < n; i++) {
    const x = v[i] * factor
    const high = Math.floor(x / TWO_32)
    out[2 * i] = x - high * TWO_32
    outHi[2 * i + 1] = high
  }
  return new Uint8Array(out.buffer)
}

function overflow(name: string, row: number): FlussError {
  return new FlussError(
    'CORRUPT_RECORD_EXCEPTION',
    `column '${name}': value at row ${row} does not fit in microseconds`,
  )
}

/** Rescales a TIME or TIMESTAMP column of any unit to microseconds. */
function toMicros(c: ArrowColumn, buffers: readonly Uint8Array[], name: string): LakeColumnBuffers {
  const data = buffers[1]
  let out: Uint8Array
  switch (c.kind) {
    case K.TIME_SECOND:
      out = int32ToScaledInt64(c, data, 1_000_000)
      break
    case K.TIME_MILLI:
      out = int32ToScaledInt64(c, data, 1000)
      break
    case K.TIMESTAMP_SECOND:
      out = scaleInt64(c, data, 1_000_000, name)
      break
    case K.TIMESTAMP_MILLI:
      out = scaleInt64(c, data, 1000, name)
      break
    case K.TIME_NANO:
    case K.TIMESTAMP_NANO:
      out = divideInt64By1000(c, data)
      break
    default:
      out = data
  }
  return { buffers: [buffers[0], out], nullCount: c.nullCount }
}

const INT_KINDS: ReadonlySet<number> = new Set([K.INT8, K.INT16, K.INT32])
const TIME_KINDS: ReadonlySet<number> = new Set([K.TIME_SECOND, K.TIME_MILLI, K.TIME_MICRO, K.TIME_NANO])
const TIMESTAMP_KINDS: ReadonlySet<number> = new Set([
  K.TIMESTAMP_SECOND,
  K.TIMESTAMP_MILLI,
  K.TIMESTAMP_MICRO,
  K.TIMESTAMP_NANO,
])

/** Same Arrow representation: equal kind, and equal width/precision/scale where they matter. */
function sameRepresentation(from: DataType, to: DataType, a: ColumnLayout, b: ColumnLayout): boolean {
  if (a.kind !== b.kind || a.byteWidth !== b.byteWidth) return false
  if (from.type === 'DECIMAL' && to.type === 'DECIMAL')
    return from.precision === to.precision && from.scale === to.scale
  return true
}

/**
 * How a column of type `from` becomes a lake column of type `to`; INVALID_REQUEST when no exact
 * (or, for sub-microsecond precision, truncating) conversion exists.
 */
export function lakeColumnConverter(
  name: string,
  from: DataType,
  fromLayout: ColumnLayout,
  to: DataType,
  toLayout: ColumnLayout,
): Converter {
  if (sameRepresentation(from, to, fromLayout, toLayout)) return passThrough
  // A DECIMAL widened in precision keeps its unscaled 128-bit values.
  if (
    from.type === 'DECIMAL' &&
    to.type === 'DECIMAL' &&
    from.scale === to.scale &&
    from.precision <= to.precision
  )
    return passThrough
  if (toLayout.kind === K.INT64 && INT_KINDS.has(fromLayout.kind)) return widenToInt64
  if (toLayout.kind === K.FLOAT64 && fromLayout.kind === K.FLOAT32) return widenToFloat64
  if (toLayout.kind === K.INT32 && (fromLayout.kind === K.INT8 || fromLayout.kind === K.INT16))
    return widenInt
  if (toLayout.kind === K.TIME_MICRO && TIME_KINDS.has(fromLayout.kind)) return toMicros
  if (toLayout.kind === K.TIMESTAMP_MICRO && TIMESTAMP_KINDS.has(fromLayout.kind)) return toMicros
  throw unsupported(name, from, to)
}

/** An all-null column of `rows` values in `layout` (for columns added after a batch was written). */
export function nullColumn(layout: ColumnLayout, rows: number): LakeColumnBuffers {
  const validity = new Uint8Array((rows + 7) >> 3)
  if (layout.bufferCount === 3) {
    return { buffers: [validity, new Uint8Array(4 * (rows + 1)), EMPTY], nullCount: rows }
  }
  const dataBytes = layout.kind === K.BOOL ? (rows + 7) >> 3 : rows * layout.byteWidth
  return { buffers: [validity, new Uint8Array(dataBytes)], nullCount: rows }
}
