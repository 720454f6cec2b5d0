import { Timestamp, type Value } from '../row/value.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ArrowColumn } from './column-reader.js'
import { corrupt } from './flatbuf-reader.js'
import { getInt64Number, type Int64Split, splitInt64 } from './int64.js'

/**
 * Conversions of Arrow values back to core values, following Fluss's `arrow/vectors` readers:
 * sub-millisecond timestamp parts are taken with floor division so pre-1970 values keep a
 * non-negative nano-of-millisecond.
 */

const decoder = new TextDecoder()
const split: Int64Split = { quotient: 0, remainder: 0 }

export function utf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 24) return decoder.decode(bytes.subarray(start, end))
  let s = ''
  for (let i = start; i < end; i++) {
    const c = bytes[i]
    if (c >= 0x80) return decoder.decode(bytes.subarray(start, end))
    s += String.fromCharCode(c)
  }
  return s
}

export function readInt128(view: DataView, at: number): bigint {
  const low = view.getBigInt64(at, true)
  const high1 = view.getInt32(at + 8, true)
  const high2 = view.getInt32(at + 12, true)
  if (high1 === high2 && (high1 === 0 ? low >= 0n : high1 === -1 && low < 0n)) return low
  return (view.getBigInt64(at + 8, true) << 64n) | view.getBigUint64(at, true)
}

export function readTemporal(c: ArrowColumn, i: number): Value {
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
