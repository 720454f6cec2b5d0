import protobuf from 'protobufjs/minimal.js'
import { assert, FlussError } from '../errors/index.js'

/**
 * Protobuf encoding and decoding of Fluss messages on top of the pbjs static code.
 *
 * Copies of large `bytes` fields (log batches up to 16 MB) are what matter here:
 * - decode: every `bytes` field is a Buffer *view* into the frame (no copy);
 * - encode into a MessageWriter: `bytes` values of at least SPLICE_MIN_BYTES are not copied at all;
 *   the writer returns a list of chunks (its own buffer slices with the big values spliced in
 *   between) that the socket writes in one writev. `MessageType.encode` (single Buffer) copies them
 *   exactly once.
 * int64 fields are JS numbers; a value beyond ±(2^53 - 1) cannot be represented exactly and is rejected
 * (CORRUPT_MESSAGE on decode, assertion on encode). Fluss ids, offsets, epochs and timestamps stay
 * far below that.
 */

/** `bytes` values at least this long are referenced by the writer instead of copied. */
export const SPLICE_MIN_BYTES = 16 * 1024

/** The surface of a pbjs static message class that we use. */
interface PbjsClass {
  encode(message: unknown, writer: protobuf.Writer): protobuf.Writer
  decode(reader: protobuf.Reader): unknown
}

/** One protobuf message type: `T` is the decoded shape, `I` what encode accepts. */
export interface MessageType<T, I> {
  readonly name: string
  /** Encodes into a single Buffer. */
  encode(message: I): Buffer
  /** Appends the encoding to `writer` (large bytes fields are referenced, not copied). */
  encodeTo(message: I, writer: MessageWriter): void
  /** Decodes a whole buffer; bytes fields are views into it. Throws CORRUPT_MESSAGE. */
  decode(bytes: Uint8Array): T
}

/** The decoded shape of a MessageType. */
export type Decoded<M> = M extends MessageType<infer T, never> ? T : never
/** The encodable shape of a MessageType. */
export type Init<M> = M extends MessageType<unknown, infer I> ? I : never

/** Wraps one pbjs class; used by the generated fluss-api.ts. */
export function messageType<T, I>(name: string, pbjsClass: unknown): MessageType<T, I> {
  const cls = pbjsClass as PbjsClass
  assert(typeof cls?.encode === 'function' && typeof cls.decode === 'function', `no pbjs class for ${name}`)
  return {
    name,
    encode(message: I): Buffer {
      const writer = new MessageWriter()
      cls.encode(message, writer)
      return writer.finish()
    },
    encodeTo(message: I, writer: MessageWriter): void {
      cls.encode(message, writer)
    },
    decode(bytes: Uint8Array): T {
      const buf = Buffer.isBuffer(bytes)
        ? bytes
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      try {
        return cls.decode(new MessageReader(buf)) as T
      } catch (e) {
        if (e instanceof FlussError) throw e
        const reason = e instanceof Error ? e.message : String(e)
        throw new FlussError('CORRUPT_MESSAGE', `Cannot decode ${name} (${buf.length} bytes): ${reason}`, {
          cause: e,
        })
      }
    },
  }
}

/** A protobuf reader whose int64 fields are safe JS numbers. */
class MessageReader extends protobuf.BufferReader {}

function readSafeInt64(this: protobuf.Reader): number {
  const value = protobuf.Reader.prototype.int64.call(this) as unknown as number | { toNumber(): number }
  const n = typeof value === 'number' ? value : value.toNumber()
  if (!Number.isSafeInteger(n)) {
    throw new FlussError('CORRUPT_MESSAGE', `int64 value ${String(value)} is beyond 2^53 and not supported`)
  }
  return n
}
// int64s (packed) calls this.int64() for each element, so it is covered too.
Object.defineProperty(MessageReader.prototype, 'int64', { value: readSafeInt64, writable: true })

interface Splice {
  /** Physical position in `buf` before which `value` logically sits. */
  pos: number
  value: Uint8Array
}

interface WriterInternals {
  _reserve(n: number): void
}

/**
 * A protobuf writer that keeps large `bytes` values out of its buffer. It relies on the protobufjs 8
 * Writer layout (a single growing `buf`, `pos`, and `states` holding fork positions): `bytes`
 * records a splice, and `ldelim` counts spliced bytes when it writes a length prefix.
 */
export class MessageWriter extends protobuf.BufferWriter {
  readonly #splices: Splice[] = []
  #splicedBytes = 0

  /** Total encoded length: buffered plus spliced bytes. */
  get byteLength(): number {
    return this.pos + this.#splicedBytes
  }

  /** Reserves `n` bytes at the current position (for a frame header patched later). */
  skip(n: number): this {
    ;(this as unknown as WriterInternals)._reserve(n)
    this.buf.fill(0, this.pos, this.pos + n)
    this.pos += n
    return this
  }

  override bytes(value: Uint8Array | string): this {
    if (typeof value === 'string' || value.length < SPLICE_MIN_BYTES) return super.bytes(value) as this
    this.uint32(value.length)
    this.#splices.push({ pos: this.pos, value })
    this.#splicedBytes += value.length
    return this
  }

  override ldelim(): this {
    const lenPos = this.states?.pop()
    assert(lenPos !== undefined, 'ldelim without a matching fork')
    let len = this.pos - lenPos - 1
    let first = this.#splices.length
    while (first > 0 && this.#splices[first - 1].pos > lenPos) {
      first--
      len += this.#splices[first].value.length
    }
    const size = varint32Size(len)
    if (size > 1) {
      ;(this as unknown as WriterInternals)._reserve(size - 1)
      this.buf.copyWithin(lenPos + size, lenPos + 1, this.pos)
      this.pos += size - 1
      for (let i = first; i < this.#splices.length; i++) this.#splices[i].pos += size - 1
    }
    writeVarint32(len, this.buf, lenPos)
    return this
  }

  override int64(value: number | string | protobuf.Long): this {
    assertSafeInt64(value)
    return super.int64(value) as this
  }

  override int64s(values: (number | string | protobuf.Long)[]): this {
    for (const v of values) assertSafeInt64(v)
    return super.int64s(values) as this
  }

  /** The encoding as chunks in order; the writer must not be used afterwards. */
  chunks(): Buffer[] {
    const buf = this.buf as Buffer
    const out: Buffer[] = []
    let from = 0
    for (const s of this.#splices) {
      if (s.pos > from) out.push(buf.subarray(from, s.pos))
      out.push(
        Buffer.isBuffer(s.value) ? s.value : Buffer.from(s.value.buffer, s.value.byteOffset, s.value.length),
      )
      from = s.pos
    }
    if (this.pos > from || out.length === 0) out.push(buf.subarray(from, this.pos))
    return out
  }

  /** The encoding as one Buffer (spliced values copied once). */
  override finish(): Buffer {
    if (this.#splices.length === 0) return (this.buf as Buffer).subarray(0, this.pos)
    return Buffer.concat(this.chunks(), this.byteLength)
  }
}

function assertSafeInt64(value: unknown): void {
  assert(
    typeof value === 'number' && Number.isSafeInteger(value),
    `int64 field value ${String(value)} is not a safe integer`,
  )
}

function varint32Size(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

function writeVarint32(value: number, buf: Uint8Array, pos: number): void {
  let v = value >>> 0
  let p = pos
  while (v > 127) {
    buf[p++] = (v & 127) | 128
    v >>>= 7
  }
  buf[p] = v
}
