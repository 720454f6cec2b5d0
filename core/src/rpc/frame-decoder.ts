import { FlussError } from '../errors/index.js'
import { LENGTH_PREFIX_BYTES } from './frame.js'

const EMPTY = Buffer.alloc(0)

/**
 * Cuts a TCP byte stream into length-prefixed frames.
 *
 * A frame that arrives inside one chunk is returned as a view of that chunk (no copy); a frame spread
 * over several chunks is assembled once, when its last byte arrives. A length prefix outside
 * [minFrameBytes, maxFrameBytes] fails at once with CORRUPT_MESSAGE, before any of the frame is
 * buffered; after a failure the decoder stays failed (the connection is to be closed).
 */
export class FrameDecoder {
  readonly #maxFrameBytes: number
  readonly #minFrameBytes: number
  #parts: Buffer[] = []
  #partsBytes = 0
  /** Length of the frame being assembled, or -1 while its length prefix is incomplete. */
  #frameBytes = -1
  #failure: FlussError | undefined

  constructor(options: { maxFrameBytes: number; minFrameBytes?: number }) {
    this.#maxFrameBytes = options.maxFrameBytes
    this.#minFrameBytes = options.minFrameBytes ?? 0
  }

  /** Bytes held for an incomplete frame (or length prefix). */
  get bufferedBytes(): number {
    return this.#partsBytes
  }

  /**
   * Feeds one chunk and calls `onFrame` for each frame it completes (without length prefix), in order.
   * Throws CORRUPT_MESSAGE at the first bad length prefix, after the frames before it were delivered.
   */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    if (this.#failure) throw this.#failure
    let offset = 0
    while (offset < chunk.length) {
      if (this.#frameBytes < 0) {
        offset = this.#readLength(chunk, offset)
        if (this.#frameBytes < 0) break
        if (this.#frameBytes === 0) {
          this.#frameBytes = -1
          onFrame(EMPTY)
          continue
        }
      }
      offset = this.#readBody(chunk, offset, onFrame)
    }
  }

  #readLength(chunk: Buffer, offset: number): number {
    let length: number
    let next = offset
    if (this.#partsBytes === 0 && chunk.length - offset >= LENGTH_PREFIX_BYTES) {
      length = chunk.readInt32BE(offset)
      next += LENGTH_PREFIX_BYTES
    } else {
      const take = Math.min(LENGTH_PREFIX_BYTES - this.#partsBytes, chunk.length - offset)
      this.#append(chunk.subarray(offset, offset + take))
      next += take
      if (this.#partsBytes < LENGTH_PREFIX_BYTES) return next
      length = this.#takeParts().readInt32BE(0)
    }
    if (length < this.#minFrameBytes || length > this.#maxFrameBytes) {
      const bound =
        length < this.#minFrameBytes
          ? `below the minimum ${this.#minFrameBytes}`
          : `above the maximum ${this.#maxFrameBytes}`
      this.#failure = new FlussError('CORRUPT_MESSAGE', `Frame length ${length} is ${bound}`)
      throw this.#failure
    }
    this.#frameBytes = length
    return next
  }

  #readBody(chunk: Buffer, offset: number, onFrame: (frame: Buffer) => void): number {
    const need = this.#frameBytes - this.#partsBytes
    const available = chunk.length - offset
    if (this.#partsBytes === 0 && available >= need) {
      this.#frameBytes = -1
      onFrame(chunk.subarray(offset, offset + need))
      return offset + need
    }
    const take = Math.min(need, available)
    this.#append(chunk.subarray(offset, offset + take))
    if (this.#partsBytes === this.#frameBytes) {
      this.#frameBytes = -1
      onFrame(this.#takeParts())
    }
    return offset + take
  }

  #append(part: Buffer): void {
    this.#parts.push(part)
    this.#partsBytes += part.length
  }

  #takeParts(): Buffer {
    const whole = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts, this.#partsBytes)
    this.#parts = []
    this.#partsBytes = 0
    return whole
  }
}
