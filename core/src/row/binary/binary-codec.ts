import type { DataType, MapType, RowType } from '../../types/data-type.js'
import { decimalUnscaled } from '../check-value.js'
import { bytesToUnscaled, unscaledToBytes } from '../compacted/decimal-bytes.js'
import { Decimal, type Row, Timestamp, type Value } from '../value.js'
import { BinaryArrayReader, type ByteRange, corruptArray } from './binary-array-reader.js'
import { BinaryArrayWriter } from './binary-array-writer.js'

/**
 * Encoders and decoders of ARRAY and MAP values in Fluss's binary layouts (`BinaryArray`,
 * `BinaryMap`): a MAP is `int32 keyArrayBytes`, the key array, then the value array. ROW elements
 * are nested rows of the enclosing row format (CompactedRow inside compacted rows), given by a
 * `RowCodecFactory`. Values are not checked here: callers check them first (`checkValue`).
 */

/** Encodes and decodes the nested rows of one ROW type (the bytes returned may be a reused view). */
export interface NestedRowCodec {
  encode(row: readonly Value[]): Uint8Array
  decode(bytes: Uint8Array, offset: number, length: number): Row
}
export type RowCodecFactory = (rowType: RowType) => NestedRowCodec

export interface BinaryCodec<T extends Value> {
  encode(value: T): Uint8Array
  decode(bytes: Uint8Array, offset: number, length: number): T
}

type SlotWriter = (w: BinaryArrayWriter, i: number, v: Value) => void
type SlotReader = (r: BinaryArrayReader, i: number) => Value

const utf8 = new TextEncoder()
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const unchecked = (): never => {
  throw new TypeError('unchecked decimal value')
}

/** Fluss's `BinaryArray.calculateFixLengthPartSize`: bytes of one element slot. */
export function slotBytes(t: DataType): number {
  switch (t.type) {
    case 'BOOLEAN':
    case 'TINYINT':
      return 1
    case 'SMALLINT':
      return 2
    case 'INTEGER':
    case 'FLOAT':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return 4
    default:
      return 8
  }
}

export function arrayCodec(elementType: DataType, rows: RowCodecFactory): BinaryCodec<Value[]> {
  const width = slotBytes(elementType)
  const write = slotWriter(elementType, rows)
  const read = slotReader(elementType, rows)
  return {
    encode(values) {
      const w = new BinaryArrayWriter(values.length, width)
      for (let i = 0; i < values.length; i++) {
        const v = values[i]
        if (v === null) w.setNull(i)
        else write(w, i, v)
      }
      return w.finish()
    },
    decode(bytes, offset, length) {
      const r = new BinaryArrayReader(bytes, offset, length, width)
      const out = new Array<Value>(r.size)
      for (let i = 0; i < r.size; i++) out[i] = r.isNullAt(i) ? null : read(r, i)
      return out
    },
  }
}

export function mapCodec(type: MapType, rows: RowCodecFactory): BinaryCodec<Map<Value, Value>> {
  const keys = arrayCodec(type.keyType, rows)
  const values = arrayCodec(type.valueType, rows)
  return {
    encode(map) {
      const k = keys.encode([...map.keys()])
      const v = values.encode([...map.values()])
      const out = new Uint8Array(4 + k.length + v.length)
      new DataView(out.buffer).setInt32(0, k.length, true)
      out.set(k, 4)
      out.set(v, 4 + k.length)
      return out
    },
    decode(bytes, offset, length) {
      if (length < 4 || offset < 0 || offset + length > bytes.length) {
        throw corruptArray(`${length} bytes cannot hold a map`)
      }
      const keyBytes = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getInt32(0, true)
      if (keyBytes < 0 || keyBytes > length - 4) throw corruptArray(`map key array of ${keyBytes} bytes`)
      const k = keys.decode(bytes, offset + 4, keyBytes)
      const v = values.decode(bytes, offset + 4 + keyBytes, length - 4 - keyBytes)
      if (k.length !== v.length) throw corruptArray(`map has ${k.length} keys and ${v.length} values`)
      const map = new Map<Value, Value>()
      for (let i = 0; i < k.length; i++) map.set(k[i], v[i])
      return map
    },
  }
}

function slotWriter(t: DataType, rows: RowCodecFactory): SlotWriter {
  switch (t.type) {
    case 'BOOLEAN':
      return (w, i, v) => w.setBoolean(i, v as boolean)
    case 'TINYINT':
      return (w, i, v) => w.setByte(i, v as number)
    case 'SMALLINT':
      return (w, i, v) => w.setShort(i, v as number)
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return (w, i, v) => w.setInt(i, v as number)
    case 'BIGINT':
      return (w, i, v) => w.setLong(i, v as bigint)
    case 'FLOAT':
      return (w, i, v) => w.setFloat(i, v as number)
    case 'DOUBLE':
      return (w, i, v) => w.setDouble(i, v as number)
    case 'CHAR':
    case 'STRING':
      return (w, i, v) => w.setBytes(i, utf8.encode(v as string))
    case 'BINARY':
    case 'BYTES':
      return (w, i, v) => w.setBytes(i, v as Uint8Array)
    case 'DECIMAL':
      if (t.precision <= 18) return (w, i, v) => w.setLong(i, decimalUnscaled(t, v, unchecked))
      return (w, i, v) => w.setDecimalBytes(i, unscaledToBytes(decimalUnscaled(t, v, unchecked)))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      if (t.precision <= 3) return (w, i, v) => w.setLong(i, BigInt((v as Timestamp).millis))
      return (w, i, v) => w.setWideTimestamp(i, (v as Timestamp).millis, (v as Timestamp).nanoOfMillis)
    case 'ARRAY': {
      const nested = arrayCodec(t.elementType, rows)
      return (w, i, v) => w.setVariable(i, nested.encode(v as Value[]))
    }
    case 'MAP': {
      const nested = mapCodec(t, rows)
      return (w, i, v) => w.setVariable(i, nested.encode(v as Map<Value, Value>))
    }
    case 'ROW': {
      const nested = rows(t)
      return (w, i, v) => w.setVariable(i, nested.encode(v as Value[]))
    }
  }
}

function slotReader(t: DataType, rows: RowCodecFactory): SlotReader {
  const range: ByteRange = { start: 0, end: 0 }
  switch (t.type) {
    case 'BOOLEAN':
      return (r, i) => r.getBoolean(i)
    case 'TINYINT':
      return (r, i) => r.getByte(i)
    case 'SMALLINT':
      return (r, i) => r.getShort(i)
    case 'INTEGER':
    case 'DATE':
    case 'TIME_WITHOUT_TIME_ZONE':
      return (r, i) => r.getInt(i)
    case 'BIGINT':
      return (r, i) => r.getLong(i)
    case 'FLOAT':
      return (r, i) => r.getFloat(i)
    case 'DOUBLE':
      return (r, i) => r.getDouble(i)
    case 'CHAR':
    case 'STRING':
      return (r, i) => {
        const { start, end } = r.bytesRange(i, range)
        try {
          return utf8Strict.decode(r.bytes.subarray(start, end))
        } catch {
          throw corruptArray(`invalid UTF-8 in element ${i}`)
        }
      }
    case 'BINARY':
    case 'BYTES':
      return (r, i) => {
        const { start, end } = r.bytesRange(i, range)
        return new Uint8Array(r.bytes.subarray(start, end))
      }
    case 'DECIMAL': {
      const scale = t.scale
      if (t.precision <= 18) return (r, i) => new Decimal(r.getLong(i), scale)
      return (r, i) => {
        const { start, end } = r.variableRange(i, range)
        if (start === end) throw corruptArray(`empty decimal bytes in element ${i}`)
        return new Decimal(bytesToUnscaled(r.bytes, start, end), scale)
      }
    }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      if (t.precision <= 3) return (r, i) => new Timestamp(r.getLongNumber(i, 'timestamp millis'), 0)
      return (r, i) => {
        const { millis, nanoOfMillis } = r.getWideTimestamp(i)
        return new Timestamp(millis, nanoOfMillis)
      }
    case 'ARRAY': {
      const nested = arrayCodec(t.elementType, rows)
      return (r, i) => {
        const { start, end } = r.variableRange(i, range)
        return nested.decode(r.bytes, start, end - start)
      }
    }
    case 'MAP': {
      const nested = mapCodec(t, rows)
      return (r, i) => {
        const { start, end } = r.variableRange(i, range)
        return nested.decode(r.bytes, start, end - start)
      }
    }
    case 'ROW': {
      const nested = rows(t)
      return (r, i) => {
        const { start, end } = r.variableRange(i, range)
        return nested.decode(r.bytes, start, end - start)
      }
    }
  }
}
