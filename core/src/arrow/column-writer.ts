import { FlussError } from '../errors/index.js'
import { Decimal, Timestamp, type Value } from '../row/value.js'
import { type DataType, typeToString } from '../types/data-type.js'
import { ColumnKind as K } from './arrow-type.js'
import type { ColumnLayout } from './column-layout.js'
import { setInt64Number } from './int64.js'
import {
  encodeInt128,
  encodeTime,
  encodeTimestamp,
  INT64_MAX,
  INT64_MIN,
  rescaleDecimal,
} from './value-encoding.js'

/**
 * One column of an Arrow batch under construction: a validity bitmap, a data buffer and, for
 * Utf8/Binary, int32 offsets, all growable and reused across batches. Value checks reject anything
 * that does not fit the column type; value-encoding.ts holds the temporal and decimal layouts.
 */

const EMPTY = new Uint8Array(0)
const MAX_VAR_BYTES = 0x7fffffff

const encoder = new TextEncoder()

export function pad8(n: number): number {
  return (n + 7) & ~7
}

/** A column of an Arrow batch under construction, flat or nested (see `nested-column-writer.ts`). */
export interface ArrowColumnWriter {
  /** Values written (rows of a top-level column, elements of a child). */
  readonly count: number
  readonly nullCount: number
  /** Appends one value; throws (with nothing changed) when it does not fit the column type. */
  write(v: Value): void
  /** Appends a null even to a NOT NULL column: the slot of a child under a null struct. */
  writeAbsent(): void
  /** Drops every value after the first `rows`. */
  rollback(rows: number): void
  /** Clears the values, keeping the allocated buffers. */
  reset(): void
  /** The IPC buffers of the column and its descendants, in body order. */
  buffers(out: Uint8Array[]): void
  /** The (length, null count) field nodes of the column and its descendants, in batch order. */
  nodes(out: number[]): void
  /** Uncompressed body bytes of the column and its descendants, each buffer padded to 8. */
  bodySize(): number
}

export class ColumnWriter implements ArrowColumnWriter {
  readonly kind: number
  private readonly byteWidth: number
  private readonly variable: boolean
  private readonly decimalBound: bigint
  private readonly decimalScale: number
  private capacity: number
  count = 0
  nullCount = 0
  private validity: Uint8Array
  private data: Uint8Array
  private view: DataView
  private offsets: Int32Array
  /** Bytes used in `data` by a variable-length column. */
  private dataLength = 0

  constructor(
    private readonly name: string,
    private readonly type: DataType,
    layout: ColumnLayout,
    initialCapacity: number,
  ) {
    this.kind = layout.kind
    this.byteWidth = layout.byteWidth
    this.variable = layout.bufferCount === 3
    this.capacity = Math.max(8, (initialCapacity + 7) & ~7)
    this.decimalBound = type.type === 'DECIMAL' ? 10n ** BigInt(type.precision) : 0n
    this.decimalScale = type.type === 'DECIMAL' ? type.scale : 0
    this.validity = new Uint8Array(this.capacity >> 3)
    this.data = new Uint8Array(this.variable ? this.capacity * 16 : this.dataBytesFor(this.capacity))
    this.view = new DataView(this.data.buffer)
    this.offsets = new Int32Array(this.variable ? this.capacity + 1 : 0)
  }

  private dataBytesFor(rows: number): number {
    return this.kind === K.BOOL ? rows >> 3 : rows * this.byteWidth
  }

  /** Appends one value; throws (with nothing changed) when it does not fit the column type. */
  write(v: Value): void {
    if (v === null || v === undefined) {
      if (!this.type.nullable)
        throw new FlussError('INVALID_REQUEST', `null value in NOT NULL column '${this.name}'`)
      this.writeAbsent()
      return
    }
    const i = this.count
    if (i === this.capacity) this.grow()
    this.writeValue(i, v)
    this.validity[i >> 3] |= 1 << (i & 7)
    this.count = i + 1
  }

  writeAbsent(): void {
    const i = this.count
    if (i === this.capacity) this.grow()
    if (this.variable) this.offsets[i + 1] = this.offsets[i]
    else if (this.byteWidth > 0) this.data.fill(0, i * this.byteWidth, (i + 1) * this.byteWidth)
    this.nullCount++
    this.count = i + 1
  }

  private writeValue(i: number, v: Value): void {
    const view = this.view
    switch (this.kind) {
      case K.BOOL:
        if (typeof v !== 'boolean') throw this.bad(v)
        if (v) this.data[i >> 3] |= 1 << (i & 7)
        return
      case K.INT8:
        if (typeof v !== 'number' || (v << 24) >> 24 !== v) throw this.bad(v)
        view.setInt8(i, v)
        return
      case K.INT16:
        if (typeof v !== 'number' || (v << 16) >> 16 !== v) throw this.bad(v)
        view.setInt16(i * 2, v, true)
        return
      case K.INT32:
      case K.DATE_DAY:
        if (typeof v !== 'number' || (v | 0) !== v) throw this.bad(v)
        view.setInt32(i * 4, v, true)
        return
      case K.INT64:
        this.writeInt64(i, v)
        return
      case K.FLOAT32:
        if (typeof v !== 'number') throw this.bad(v)
        view.setFloat32(i * 4, v, true)
        return
      case K.FLOAT64:
        if (typeof v !== 'number') throw this.bad(v)
        view.setFloat64(i * 8, v, true)
        return
      case K.UTF8:
        if (typeof v !== 'string') throw this.bad(v)
        this.writeString(i, v)
        return
      case K.BINARY:
        if (!(v instanceof Uint8Array)) throw this.bad(v)
        this.writeBytes(i, v)
        return
      case K.FIXED_BINARY:
        if (!(v instanceof Uint8Array) || v.length !== this.byteWidth) throw this.bad(v)
        this.data.set(v, i * this.byteWidth)
        return
      case K.DECIMAL128:
        this.writeDecimal(i, v)
        return
      default:
        this.writeTemporal(i, v)
        return
    }
  }

  private writeInt64(i: number, v: Value): void {
    if (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) this.view.setBigInt64(i * 8, v, true)
    else if (typeof v === 'number' && Number.isSafeInteger(v)) setInt64Number(this.view, i * 8, v)
    else throw this.bad(v)
  }

  private writeTemporal(i: number, v: Value): void {
    if (this.kind <= K.TIME_NANO) {
      if (typeof v !== 'number' || (v | 0) !== v) throw this.bad(v)
      encodeTime(this.view, i, this.kind, v)
      return
    }
    if (!(v instanceof Timestamp) || !Number.isSafeInteger(v.millis)) throw this.bad(v)
    const nanos = v.nanoOfMillis
    if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999) throw this.bad(v)
    if (!encodeTimestamp(this.view, i, this.kind, v))
      throw this.bad(v, 'outside the int64 range of the time unit')
  }

  private writeDecimal(i: number, v: Value): void {
    if (!(v instanceof Decimal)) throw this.bad(v)
    const u = rescaleDecimal(v, this.decimalScale)
    if (u === null) throw this.bad(v, `has more than ${this.decimalScale} fraction digits`)
    if (u >= this.decimalBound || u <= -this.decimalBound) throw this.bad(v, 'exceeds the precision')
    encodeInt128(this.view, i, u)
  }

  private writeString(i: number, s: string): void {
    let pos = this.dataLength
    const n = s.length
    if (pos + n * 3 > this.data.length) this.growData(pos + n * 3)
    const data = this.data
    let j = 0
    if (n <= 64) {
      for (; j < n; j++) {
        const c = s.charCodeAt(j)
        if (c >= 0x80) break
        data[pos + j] = c
      }
    }
    if (j === n) pos += n
    else pos += j + encoder.encodeInto(j === 0 ? s : s.slice(j), data.subarray(pos + j)).written
    this.dataLength = pos
    this.offsets[i + 1] = pos
  }

  private writeBytes(i: number, bytes: Uint8Array): void {
    const pos = this.dataLength
    if (pos + bytes.length > this.data.length) this.growData(pos + bytes.length)
    this.data.set(bytes, pos)
    this.dataLength = pos + bytes.length
    this.offsets[i + 1] = this.dataLength
  }

  private growData(minBytes: number): void {
    if (minBytes > MAX_VAR_BYTES) {
      throw new FlussError('RECORD_TOO_LARGE_EXCEPTION', `column '${this.name}' exceeds 2 GiB in one batch`)
    }
    const next = new Uint8Array(Math.min(MAX_VAR_BYTES, Math.max(minBytes, this.data.length * 2)))
    next.set(this.data.subarray(0, this.dataLength))
    this.data = next
    this.view = new DataView(next.buffer)
  }

  private grow(): void {
    const capacity = this.capacity * 2
    const validity = new Uint8Array(capacity >> 3)
    validity.set(this.validity)
    this.validity = validity
    if (this.variable) {
      const offsets = new Int32Array(capacity + 1)
      offsets.set(this.offsets)
      this.offsets = offsets
    } else {
      const data = new Uint8Array(this.dataBytesFor(capacity))
      data.set(this.data)
      this.data = data
      this.view = new DataView(data.buffer)
    }
    this.capacity = capacity
  }

  rollback(rows: number): void {
    for (let i = rows; i < this.count; i++) {
      const byte = i >> 3
      const bit = 1 << (i & 7)
      if ((this.validity[byte] & bit) === 0) this.nullCount--
      this.validity[byte] &= ~bit
      if (this.kind === K.BOOL) this.data[byte] &= ~bit
    }
    if (this.variable && rows < this.count) this.dataLength = this.offsets[rows]
    this.count = Math.min(this.count, rows)
  }

  reset(): void {
    const bytes = (this.count + 7) >> 3
    this.validity.fill(0, 0, bytes)
    if (this.kind === K.BOOL) this.data.fill(0, 0, bytes)
    this.count = 0
    this.nullCount = 0
    this.dataLength = 0
  }

  nodes(out: number[]): void {
    out.push(this.count, this.nullCount)
  }

  /** The column's IPC buffers in body order (validity is empty when there are no nulls). */
  buffers(out: Uint8Array[]): void {
    const n = this.count
    out.push(this.nullCount > 0 ? this.validity.subarray(0, (n + 7) >> 3) : EMPTY)
    if (this.variable) {
      out.push(new Uint8Array(this.offsets.buffer, 0, (n + 1) * 4))
      out.push(this.data.subarray(0, this.dataLength))
    } else {
      out.push(this.data.subarray(0, this.kind === K.BOOL ? (n + 7) >> 3 : n * this.byteWidth))
    }
  }

  bodySize(): number {
    const n = this.count
    const validity = this.nullCount > 0 ? pad8((n + 7) >> 3) : 0
    if (this.variable) return validity + pad8((n + 1) * 4) + pad8(this.dataLength)
    return validity + pad8(this.kind === K.BOOL ? (n + 7) >> 3 : n * this.byteWidth)
  }

  private bad(v: Value, why?: string): FlussError {
    const got =
      v instanceof Uint8Array
        ? `${v.length} bytes`
        : `${typeof v === 'object' ? v?.constructor?.name : typeof v} ${String(v).slice(0, 40)}`
    return new FlussError(
      'INVALID_REQUEST',
      `column '${this.name}' (${typeToString(this.type)}): ${why ? `value ${why}` : `cannot store ${got}`}`,
    )
  }
}
