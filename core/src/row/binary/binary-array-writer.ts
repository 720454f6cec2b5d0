/**
 * Writer of Fluss's BinaryArray layout (`BinaryArrayWriter`, release 0.9.1; Flink's BinaryArrayData),
 * the bytes of ARRAY values and of MAP key and value arrays inside rows:
 *
 * - `int32 size`, then a null bit per element (LSB first), padded to a multiple of 4 bytes;
 * - a fixed-width slot per element (1 byte for BOOLEAN/TINYINT, 2 for SMALLINT, 4 for INT, FLOAT,
 *   DATE, TIME, 8 for everything else), the fixed part padded to a multiple of 8 bytes;
 * - the variable part: each value padded to a multiple of 8 bytes, referenced from its slot by
 *   `offset << 32 | length` (offset from the array start). Strings and bytes of at most 7 bytes are
 *   stored in the slot itself, with `0x80 | length` in its last byte.
 *
 * All multi-byte values are little-endian (Fluss writes them in the native order of x86 and ARM).
 * Null elements leave their slot zero. The buffer is fresh per array, so padding bytes are zero.
 */

export const MAX_INLINE_BYTES = 7

/** Bytes of the size and null bits of an array of `size` elements. */
export function arrayHeaderBytes(size: number): number {
  return 4 + ((size + 31) >>> 5) * 4
}

export function roundToWord(n: number): number {
  return (n + 7) & ~7
}

export class BinaryArrayWriter {
  private buf: Uint8Array
  private view: DataView
  private cursor: number
  private readonly headerBytes: number

  constructor(
    readonly size: number,
    private readonly slotBytes: number,
  ) {
    this.headerBytes = arrayHeaderBytes(size)
    const fixed = roundToWord(this.headerBytes + slotBytes * size)
    this.buf = new Uint8Array(fixed)
    this.view = new DataView(this.buf.buffer)
    this.cursor = fixed
    this.view.setInt32(0, size, true)
  }

  private slot(i: number): number {
    return this.headerBytes + i * this.slotBytes
  }

  setNull(i: number): void {
    this.buf[4 + (i >>> 3)] |= 1 << (i & 7)
  }

  setBoolean(i: number, v: boolean): void {
    this.buf[this.slot(i)] = v ? 1 : 0
  }

  setByte(i: number, v: number): void {
    this.view.setInt8(this.slot(i), v)
  }

  setShort(i: number, v: number): void {
    this.view.setInt16(this.slot(i), v, true)
  }

  setInt(i: number, v: number): void {
    this.view.setInt32(this.slot(i), v, true)
  }

  setLong(i: number, v: bigint): void {
    this.view.setBigInt64(this.slot(i), v, true)
  }

  /** FLOAT; NaN is written as Java's canonical NaN, as Fluss does. */
  setFloat(i: number, v: number): void {
    if (Number.isNaN(v)) this.view.setUint32(this.slot(i), 0x7fc0_0000, true)
    else this.view.setFloat32(this.slot(i), v, true)
  }

  setDouble(i: number, v: number): void {
    if (Number.isNaN(v)) this.view.setBigUint64(this.slot(i), 0x7ff8_0000_0000_0000n, true)
    else this.view.setFloat64(this.slot(i), v, true)
  }

  /** STRING, CHAR, BYTES, BINARY: in the slot when at most 7 bytes, else in the variable part. */
  setBytes(i: number, bytes: Uint8Array): void {
    if (bytes.length > MAX_INLINE_BYTES) {
      this.setVariable(i, bytes)
      return
    }
    const at = this.slot(i)
    this.buf.set(bytes, at)
    this.buf[at + 7] = 0x80 | bytes.length
  }

  /** A value in the variable part (nested ARRAY, MAP and ROW values, long strings and bytes). */
  setVariable(i: number, bytes: Uint8Array): void {
    const offset = this.reserve(roundToWord(bytes.length))
    this.buf.set(bytes, offset)
    this.setOffsetAndSize(i, offset, bytes.length)
  }

  /** DECIMAL with precision > 18: up to 16 big-endian bytes in a 16-byte variable-part cell. */
  setDecimalBytes(i: number, bytes: Uint8Array): void {
    const offset = this.reserve(16)
    this.buf.set(bytes, offset)
    this.setOffsetAndSize(i, offset, bytes.length)
  }

  /** TIMESTAMP with precision > 3: millis in an 8-byte variable-part cell, nano-of-milli in the slot. */
  setWideTimestamp(i: number, millis: number, nanoOfMillis: number): void {
    const offset = this.reserve(8)
    this.view.setBigInt64(offset, BigInt(millis), true)
    this.setOffsetAndSize(i, offset, nanoOfMillis)
  }

  private setOffsetAndSize(i: number, offset: number, size: number): void {
    const at = this.slot(i)
    this.view.setUint32(at, size, true)
    this.view.setUint32(at + 4, offset, true)
  }

  /** Reserves `n` zeroed bytes at the end of the variable part; returns their offset. */
  private reserve(n: number): number {
    const offset = this.cursor
    if (offset + n > this.buf.length) {
      const next = new Uint8Array(Math.max(offset + n, this.buf.length * 2))
      next.set(this.buf.subarray(0, offset))
      this.buf = next
      this.view = new DataView(next.buffer)
    }
    this.cursor = offset + n
    return offset
  }

  /** The array's bytes (a view of the internal buffer). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.cursor)
  }
}
