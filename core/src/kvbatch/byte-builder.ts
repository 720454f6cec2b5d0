/** A growable little-endian byte buffer for the batch builders (doubles when full). */
export class ByteBuilder {
  buf: Buffer
  pos = 0

  constructor(initialCapacityBytes: number) {
    this.buf = Buffer.alloc(Math.max(16, initialCapacityBytes))
  }

  ensure(size: number): void {
    if (this.buf.length - this.pos >= size) return
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + size))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  int16(value: number): void {
    this.ensure(2)
    this.pos = this.buf.writeInt16LE(value, this.pos)
  }

  int32(value: number): void {
    this.ensure(4)
    this.pos = this.buf.writeInt32LE(value, this.pos)
  }

  /** Unsigned LEB128 varint of a non-negative int32. */
  varUint(value: number): void {
    this.ensure(5)
    let u = value >>> 0
    while (u > 0x7f) {
      this.buf[this.pos++] = (u & 0x7f) | 0x80
      u >>>= 7
    }
    this.buf[this.pos++] = u
  }

  bytes(value: Uint8Array): void {
    this.ensure(value.length)
    this.buf.set(value, this.pos)
    this.pos += value.length
  }
}
