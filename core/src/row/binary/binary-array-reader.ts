import { FlussError } from '../../errors/index.js'
import { arrayHeaderBytes } from './binary-array-writer.js'

export function corruptArray(message: string): FlussError {
  return new FlussError('CORRUPT_RECORD_EXCEPTION', `Corrupt binary array: ${message}`)
}

/** A range `[start, end)` of the underlying bytes. */
export interface ByteRange {
  start: number
  end: number
}

/**
 * Bounds-checked reader of one BinaryArray (see `BinaryArrayWriter`) at `bytes[offset, offset +
 * length)`: the header is validated up front, every variable-part reference when it is read.
 */
export class BinaryArrayReader {
  readonly size: number
  private readonly view: DataView
  private readonly elements: number

  constructor(
    readonly bytes: Uint8Array,
    private readonly offset: number,
    private readonly length: number,
    private readonly slotBytes: number,
  ) {
    if (offset < 0 || length < 4 || offset + length > bytes.length) {
      throw corruptArray(`${length} bytes at ${offset} cannot hold an array in ${bytes.length} bytes`)
    }
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const size = this.view.getInt32(offset, true)
    if (size < 0) throw corruptArray(`negative size ${size}`)
    const fixed = arrayHeaderBytes(size) + size * slotBytes
    if (fixed > length) throw corruptArray(`${size} elements need ${fixed} bytes, the array has ${length}`)
    this.size = size
    this.elements = offset + arrayHeaderBytes(size)
  }

  private slot(i: number): number {
    return this.elements + i * this.slotBytes
  }

  isNullAt(i: number): boolean {
    return (this.bytes[this.offset + 4 + (i >>> 3)] & (1 << (i & 7))) !== 0
  }

  getBoolean(i: number): boolean {
    return this.bytes[this.slot(i)] !== 0
  }

  getByte(i: number): number {
    return this.view.getInt8(this.slot(i))
  }

  getShort(i: number): number {
    return this.view.getInt16(this.slot(i), true)
  }

  getInt(i: number): number {
    return this.view.getInt32(this.slot(i), true)
  }

  getLong(i: number): bigint {
    return this.view.getBigInt64(this.slot(i), true)
  }

  /** A long that must be a safe integer (epoch millis). */
  getLongNumber(i: number, what: string): number {
    return this.safeLongAt(this.slot(i), what)
  }

  getFloat(i: number): number {
    return this.view.getFloat32(this.slot(i), true)
  }

  getDouble(i: number): number {
    return this.view.getFloat64(this.slot(i), true)
  }

  /** Where the bytes of a STRING/BYTES element are: in its slot (≤ 7 bytes) or the variable part. */
  bytesRange(i: number, out: ByteRange): ByteRange {
    const at = this.slot(i)
    const mark = this.bytes[at + 7]
    if ((mark & 0x80) !== 0) {
      const n = mark & 0x7f
      if (n > 7) throw corruptArray(`inline length ${n} at element ${i}`)
      out.start = at
      out.end = at + n
      return out
    }
    return this.variableRange(i, out)
  }

  /** The `offset << 32 | size` reference of element `i`, checked against the array. */
  variableRange(i: number, out: ByteRange): ByteRange {
    const at = this.slot(i)
    const size = this.view.getInt32(at, true)
    const offset = this.view.getInt32(at + 4, true)
    if (size < 0 || offset < 0 || offset + size > this.length) {
      throw corruptArray(`element ${i} refers to [${offset}, +${size}) outside its ${this.length} bytes`)
    }
    out.start = this.offset + offset
    out.end = out.start + size
    return out
  }

  /** A TIMESTAMP with precision > 3: millis in the variable part, nano-of-milli in the slot. */
  getWideTimestamp(i: number): { millis: number; nanoOfMillis: number } {
    const at = this.slot(i)
    const nanoOfMillis = this.view.getInt32(at, true)
    const offset = this.view.getInt32(at + 4, true)
    if (offset < 0 || offset + 8 > this.length) {
      throw corruptArray(`element ${i} refers to timestamp millis at ${offset}, outside ${this.length} bytes`)
    }
    if (nanoOfMillis < 0 || nanoOfMillis > 999_999) {
      throw corruptArray(`element ${i} has nano-of-millisecond ${nanoOfMillis}`)
    }
    return { millis: this.safeLongAt(this.offset + offset, 'timestamp millis'), nanoOfMillis }
  }

  private safeLongAt(at: number, what: string): number {
    const v = this.view.getBigInt64(at, true)
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw corruptArray(`${what} ${v} is outside the safe integer range`)
    }
    return Number(v)
  }
}
