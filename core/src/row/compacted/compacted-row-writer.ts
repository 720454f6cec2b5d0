import { unscaledToBytes } from './decimal-bytes.js'

const MIN_CAPACITY_BYTES = 64
const TWO_POW_32 = 4_294_967_296
/** Strings up to this many UTF-16 units are first tried as plain ASCII (fast path, 1-byte length). */
const ASCII_FAST_PATH_CHARS = 32

/** Bytes of the null bit set for `fieldCount` fields: one bit per field, LSB first. */
export function nullBitSetBytes(fieldCount: number): number {
  return (fieldCount + 7) >>> 3
}

/** Size of the unsigned LEB128 varint of a non-negative int32 (1–5 bytes). */
export function varIntSize(value: number): number {
  const u = value >>> 0
  if (u < 0x80) return 1
  if (u < 0x4000) return 2
  if (u < 0x20_0000) return 3
  if (u < 0x1000_0000) return 4
  return 5
}

/**
 * Sequential writer of Fluss's CompactedRow format: `nullBitSet[(n+7)/8]` followed by the non-null
 * fields in column order. The buffer is reused across rows (`reset()`) and grows by doubling.
 * Fields must be written in column order; null fields are only marked with `setNullAt`.
 */
export class CompactedRowWriter {
  readonly headerSizeBytes: number
  private buf: Buffer
  private view: DataView
  private pos: number

  constructor(fieldCount: number, initialCapacityBytes = MIN_CAPACITY_BYTES) {
    this.headerSizeBytes = nullBitSetBytes(fieldCount)
    this.buf = Buffer.alloc(Math.max(initialCapacityBytes, this.headerSizeBytes, 16))
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
    this.pos = this.headerSizeBytes
  }

  /** Starts a new row: clears the null bits and rewinds to the first field. */
  reset(): void {
    const buf = this.buf
    for (let i = 0; i < this.headerSizeBytes; i++) buf[i] = 0
    this.pos = this.headerSizeBytes
  }

  /** Bytes written so far (header included). */
  get position(): number {
    return this.pos
  }

  /** The row written so far as a view of the internal buffer; valid until the next write or reset. */
  bytesView(): Buffer {
    return this.buf.subarray(0, this.pos)
  }

  /** A copy of the row written so far. */
  toBytes(): Buffer {
    const out = Buffer.allocUnsafe(this.pos)
    this.buf.copy(out, 0, 0, this.pos)
    return out
  }

  setNullAt(index: number): void {
    this.buf[index >>> 3] |= 1 << (index & 7)
  }

  writeBoolean(value: boolean): void {
    this.ensureCapacity(1)
    this.buf[this.pos++] = value ? 1 : 0
  }

  /** TINYINT: one signed byte. */
  writeByte(value: number): void {
    this.ensureCapacity(1)
    this.buf[this.pos++] = value & 0xff
  }

  /** SMALLINT: two bytes little-endian. */
  writeShort(value: number): void {
    this.ensureCapacity(2)
    this.buf[this.pos++] = value & 0xff
    this.buf[this.pos++] = (value >>> 8) & 0xff
  }

  /** INT, DATE, TIME: unsigned LEB128 varint of the 32-bit two's complement (negatives take 5 bytes). */
  writeInt(value: number): void {
    this.ensureCapacity(5)
    const buf = this.buf
    let u = value >>> 0
    let p = this.pos
    while (u > 0x7f) {
      buf[p++] = (u & 0x7f) | 0x80
      u >>>= 7
    }
    buf[p++] = u
    this.pos = p
  }

  /** BIGINT from a bigint: unsigned LEB128 varint of the 64-bit two's complement (1–10 bytes). */
  writeLong(value: bigint): void {
    if (value >= -9_007_199_254_740_991n && value <= 9_007_199_254_740_991n) {
      this.writeLongNumber(Number(value))
      return
    }
    const u = BigInt.asUintN(64, value)
    this.writeVarLong64(Number(u >> 32n), Number(u & 0xffff_ffffn))
  }

  /** A 64-bit varint from a safe integer (used for timestamps' epoch millis). */
  writeLongNumber(value: number): void {
    if (value >= 0) {
      this.ensureCapacity(10)
      const buf = this.buf
      let p = this.pos
      let v = value
      while (v > 0x7f) {
        buf[p++] = (v & 0x7f) | 0x80
        v = Math.floor(v / 128)
      }
      buf[p++] = v
      this.pos = p
      return
    }
    const hi = Math.floor(value / TWO_POW_32)
    this.writeVarLong64(hi >>> 0, (value - hi * TWO_POW_32) >>> 0)
  }

  /** A 64-bit varint from its two unsigned 32-bit halves. */
  private writeVarLong64(hi: number, lo: number): void {
    this.ensureCapacity(10)
    const buf = this.buf
    let p = this.pos
    while (hi !== 0 || lo > 0x7f) {
      buf[p++] = (lo & 0x7f) | 0x80
      lo = ((lo >>> 7) | (hi << 25)) >>> 0
      hi >>>= 7
    }
    buf[p++] = lo
    this.pos = p
  }

  writeFloat(value: number): void {
    this.ensureCapacity(4)
    this.view.setFloat32(this.pos, value, true)
    this.pos += 4
  }

  writeDouble(value: number): void {
    this.ensureCapacity(8)
    this.view.setFloat64(this.pos, value, true)
    this.pos += 8
  }

  /** STRING and CHAR: varint byte length + UTF-8 bytes. */
  writeString(value: string): void {
    const n = value.length
    if (n <= ASCII_FAST_PATH_CHARS && this.tryWriteAscii(value, n)) return
    const maxBytes = n * 3
    const reserved = varIntSize(maxBytes)
    this.ensureCapacity(5 + maxBytes)
    const start = this.pos + reserved
    const written = this.buf.write(value, start, maxBytes, 'utf8')
    const lengthSize = varIntSize(written)
    if (lengthSize < reserved) this.buf.copyWithin(this.pos + lengthSize, start, start + written)
    this.writeInt(written)
    this.pos += written
  }

  private tryWriteAscii(value: string, n: number): boolean {
    this.ensureCapacity(n + 1)
    const buf = this.buf
    const start = this.pos + 1
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i)
      if (c > 0x7f) return false
      buf[start + i] = c
    }
    buf[this.pos] = n
    this.pos = start + n
    return true
  }

  /** BYTES and BINARY: varint length + bytes. */
  writeBytes(value: Uint8Array): void {
    const n = value.length
    this.writeInt(n)
    this.ensureCapacity(n)
    this.buf.set(value, this.pos)
    this.pos += n
  }

  /** DECIMAL: the unscaled value as a varint64 when precision ≤ 18, else as minimal big-endian bytes. */
  writeDecimalUnscaled(unscaled: bigint, precision: number): void {
    if (precision <= 18) this.writeLong(unscaled)
    else this.writeBytes(unscaledToBytes(unscaled))
  }

  /** TIMESTAMP / TIMESTAMP_LTZ: epoch millis, plus nano-of-millisecond when precision > 3. */
  writeTimestamp(millis: number, nanoOfMillis: number, precision: number): void {
    this.writeLongNumber(millis)
    if (precision > 3) this.writeInt(nanoOfMillis)
  }

  private ensureCapacity(size: number): void {
    if (this.buf.length - this.pos < size) this.grow(size)
  }

  private grow(size: number): void {
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + size))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength)
  }
}
