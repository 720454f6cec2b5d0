import { FlussError } from '@sluice/core/errors'

/** Malformed serialized Roaring64Bitmap bytes: INVALID_REQUEST, as rbm32 does for its format. */
export function corrupt64(reason: string): FlussError {
  return new FlussError('INVALID_REQUEST', `Unable to deserialize 64-bit roaring bitmap: ${reason}`)
}

/**
 * Bounds-checked little-endian reads over one serialized bitmap (32- and 64-bit formats alike);
 * reading past the end throws the format's own error.
 */
export class RoaringReader {
  pos = 0
  readonly buf: Buffer
  readonly #corrupt: (reason: string) => FlussError

  constructor(bytes: Uint8Array, corrupt: (reason: string) => FlussError = corrupt64) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#corrupt = corrupt
  }

  get remaining(): number {
    return this.buf.length - this.pos
  }

  need(n: number, what: string): void {
    if (n > this.remaining) throw this.#corrupt(`${what} runs past the end of ${this.buf.length} bytes`)
  }

  u8(what: string): number {
    this.need(1, what)
    return this.buf[this.pos++]
  }

  u16(what: string): number {
    this.need(2, what)
    const v = this.buf.readUInt16LE(this.pos)
    this.pos += 2
    return v
  }

  i32(what: string): number {
    this.need(4, what)
    const v = this.buf.readInt32LE(this.pos)
    this.pos += 4
    return v
  }

  i64(what: string): bigint {
    this.need(8, what)
    const v = this.buf.readBigInt64LE(this.pos)
    this.pos += 8
    return v
  }

  bytes(n: number, what: string): Uint8Array {
    this.need(n, what)
    const out = Uint8Array.from(this.buf.subarray(this.pos, this.pos + n))
    this.pos += n
    return out
  }

  u16s(count: number, what: string): Uint16Array {
    return this.copy(new Uint16Array(count), what)
  }

  /** Fills `into` with the next little-endian values. */
  copy<T extends Uint16Array | Uint32Array>(into: T, what: string): T {
    this.need(into.byteLength, what)
    const bytes = this.buf.subarray(this.pos, this.pos + into.byteLength)
    const width = into.BYTES_PER_ELEMENT
    if (LITTLE_ENDIAN_HOST) new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(bytes)
    else for (let i = 0; i < into.length; i++) into[i] = bytes.readUIntLE(width * i, width)
    this.pos += into.byteLength
    return into
  }
}

export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Little-endian appends into a growing buffer. */
export class Roaring64Writer {
  #buf = Buffer.alloc(256)
  #pos = 0

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return
    const grown = Buffer.alloc(Math.max(this.#buf.length * 2, this.#pos + n))
    this.#buf.copy(grown, 0, 0, this.#pos)
    this.#buf = grown
  }

  u8(v: number): void {
    this.#ensure(1)
    this.#buf[this.#pos++] = v
  }

  u16(v: number): void {
    this.#ensure(2)
    this.#buf.writeUInt16LE(v, this.#pos)
    this.#pos += 2
  }

  i32(v: number): void {
    this.#ensure(4)
    this.#buf.writeInt32LE(v, this.#pos)
    this.#pos += 4
  }

  u32(v: number): void {
    this.#ensure(4)
    this.#buf.writeUInt32LE(v, this.#pos)
    this.#pos += 4
  }

  i64(v: bigint): void {
    this.#ensure(8)
    this.#buf.writeBigInt64LE(v, this.#pos)
    this.#pos += 8
  }

  bytes(b: Uint8Array): void {
    this.#ensure(b.length)
    this.#buf.set(b, this.#pos)
    this.#pos += b.length
  }

  /** The bytes written, in a buffer of exactly their size. */
  finish(): Buffer {
    return this.#pos === this.#buf.length ? this.#buf : Buffer.from(this.#buf.subarray(0, this.#pos))
  }
}
