import { FlussError } from '../../errors/index.js'
import { Timestamp } from '../value.js'
import { nullBitSetBytes } from './compacted-row-writer.js'
import { bytesToUnscaled } from './decimal-bytes.js'

const TWO_POW_32 = 4_294_967_296
const ASCII_FAST_PATH_BYTES = 64
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function corruptRow(message: string): FlussError {
  return new FlussError('CORRUPT_RECORD_EXCEPTION', `Corrupt compacted row: ${message}`)
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/**
 * Sequential, bounds-checked reader of Fluss's CompactedRow format (see `CompactedRowWriter`).
 * Every read checks the row's limit: truncated varints, lengths past the end, over-long varints and
 * invalid UTF-8 raise CORRUPT_RECORD_EXCEPTION instead of reading neighbouring bytes.
 */
export class CompactedRowReader {
  readonly headerSizeBytes: number
  private buf: Buffer = Buffer.alloc(0)
  private offset = 0
  private pos = 0
  private limit = 0

  constructor(fieldCount: number) {
    this.headerSizeBytes = nullBitSetBytes(fieldCount)
  }

  /** Points the reader at the row `bytes[offset, offset + length)`. */
  pointTo(bytes: Uint8Array, offset = 0, length = bytes.length - offset): void {
    if (bytes !== this.buf) this.buf = asBuffer(bytes)
    if (offset < 0 || length < 0 || offset + length > bytes.length) {
      throw corruptRow(`row [${offset}, ${offset + length}) lies outside a buffer of ${bytes.length} bytes`)
    }
    if (length < this.headerSizeBytes) {
      throw corruptRow(`${length} bytes cannot hold the ${this.headerSizeBytes}-byte null bit set`)
    }
    this.offset = offset
    this.pos = offset + this.headerSizeBytes
    this.limit = offset + length
  }

  /** Bytes left after the current position. */
  get remaining(): number {
    return this.limit - this.pos
  }

  isNullAt(index: number): boolean {
    return (this.buf[this.offset + (index >>> 3)] & (1 << (index & 7))) !== 0
  }

  readBoolean(): boolean {
    this.need(1, 'BOOLEAN')
    return this.buf[this.pos++] !== 0
  }

  readByte(): number {
    this.need(1, 'TINYINT')
    return (this.buf[this.pos++] << 24) >> 24
  }

  readShort(): number {
    this.need(2, 'SMALLINT')
    const v = this.buf.readInt16LE(this.pos)
    this.pos += 2
    return v
  }

  readFloat(): number {
    this.need(4, 'FLOAT')
    const v = this.buf.readFloatLE(this.pos)
    this.pos += 4
    return v
  }

  readDouble(): number {
    this.need(8, 'DOUBLE')
    const v = this.buf.readDoubleLE(this.pos)
    this.pos += 8
    return v
  }

  /** A varint of a 32-bit two's-complement value (at most 5 bytes, the 5th carrying 4 bits). */
  readInt(): number {
    const buf = this.buf
    let p = this.pos
    if (p >= this.limit) throw corruptRow('truncated varint')
    let b = buf[p++]
    if (b < 0x80) {
      this.pos = p
      return b
    }
    let result = b & 0x7f
    for (let shift = 7; shift < 28; shift += 7) {
      if (p >= this.limit) throw corruptRow('truncated varint')
      b = buf[p++]
      result |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = p
        return result
      }
    }
    if (p >= this.limit) throw corruptRow('truncated varint')
    b = buf[p++]
    if (b > 0x0f) throw corruptRow('varint does not fit in 32 bits')
    this.pos = p
    return result | (b << 28)
  }

  /** A varint of a 64-bit two's-complement value as a bigint. */
  readLong(): bigint {
    const lo = this.readVarLong64()
    const hi = this.hi
    if (hi === 0) return BigInt(lo)
    const n = (hi | 0) * TWO_POW_32 + lo
    if (Number.isSafeInteger(n)) return BigInt(n)
    return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo))
  }

  /** A varint of a 64-bit value that must be a safe integer (epoch millis). */
  readLongNumber(what: string): number {
    const lo = this.readVarLong64()
    const hi = this.hi
    const n = (hi | 0) * TWO_POW_32 + lo
    if (!Number.isSafeInteger(n)) {
      const exact = BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo))
      throw corruptRow(`${what} ${exact} is outside the safe integer range`)
    }
    return n
  }

  /** High 32 bits of the last `readVarLong64` (unsigned). */
  private hi = 0

  /** Decodes a 64-bit varint; returns the low 32 bits and leaves the high 32 bits in `hi`. */
  private readVarLong64(): number {
    const buf = this.buf
    const limit = this.limit
    let p = this.pos
    let lo = 0
    let hi = 0
    let b = 0
    for (let shift = 0; shift < 28; shift += 7) {
      if (p >= limit) throw corruptRow('truncated varint')
      b = buf[p++]
      lo |= (b & 0x7f) << shift
      if (b < 0x80) return this.endVarLong(p, lo, 0)
    }
    if (p >= limit) throw corruptRow('truncated varint')
    b = buf[p++]
    lo |= (b & 0x0f) << 28
    hi = (b & 0x7f) >>> 4
    if (b < 0x80) return this.endVarLong(p, lo, hi)
    for (let shift = 3; shift < 31; shift += 7) {
      if (p >= limit) throw corruptRow('truncated varint')
      b = buf[p++]
      hi |= (b & 0x7f) << shift
      if (b < 0x80) return this.endVarLong(p, lo, hi)
    }
    if (p >= limit) throw corruptRow('truncated varint')
    b = buf[p++]
    if (b > 1) throw corruptRow('varint does not fit in 64 bits')
    return this.endVarLong(p, lo, hi | (b << 31))
  }

  private endVarLong(p: number, lo: number, hi: number): number {
    this.pos = p
    this.hi = hi >>> 0
    return lo >>> 0
  }

  /** A varint length followed by that many bytes; returns the start offset of the bytes. */
  private readLengthPrefixed(what: string): number {
    const n = this.readInt()
    if (n < 0 || n > this.limit - this.pos) {
      throw corruptRow(`${what} length ${n} exceeds the ${this.limit - this.pos} bytes left`)
    }
    const start = this.pos
    this.pos += n
    return start
  }

  readString(): string {
    const start = this.readLengthPrefixed('string')
    const end = this.pos
    const buf = this.buf
    if (end - start <= ASCII_FAST_PATH_BYTES) {
      let ascii = true
      for (let i = start; i < end; i++) {
        if (buf[i] > 0x7f) {
          ascii = false
          break
        }
      }
      if (ascii) return buf.toString('latin1', start, end)
    }
    try {
      return utf8.decode(buf.subarray(start, end))
    } catch {
      throw corruptRow(`invalid UTF-8 in string at offset ${start - this.offset}`)
    }
  }

  /** Copies the bytes out (the row buffer may be reused). */
  readBytes(): Uint8Array {
    const start = this.readLengthPrefixed('bytes')
    const out = new Uint8Array(this.pos - start)
    out.set(this.buf.subarray(start, this.pos))
    return out
  }

  /** A nested row's bytes as a view: `[start, end)` of the underlying buffer. */
  readNestedView(): Buffer {
    const start = this.readLengthPrefixed('nested value')
    return this.buf.subarray(start, this.pos)
  }

  readDecimalUnscaled(precision: number): bigint {
    if (precision <= 18) return this.readLong()
    const start = this.readLengthPrefixed('decimal')
    if (start === this.pos) throw corruptRow('empty decimal bytes')
    return bytesToUnscaled(this.buf, start, this.pos)
  }

  readTimestamp(precision: number): Timestamp {
    const millis = this.readLongNumber('timestamp millis')
    if (precision <= 3) return new Timestamp(millis, 0)
    const nanos = this.readInt()
    if (nanos < 0 || nanos > 999_999) throw corruptRow(`nano-of-millisecond ${nanos} is out of range`)
    return new Timestamp(millis, nanos)
  }

  private need(n: number, what: string): void {
    if (this.limit - this.pos < n) throw corruptRow(`truncated ${what}`)
  }
}
