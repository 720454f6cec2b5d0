import { isAscii } from 'node:buffer'

/**
 * Bytes decoded at a time. V8 makes strings above about 128 KiB in its large-object space, which
 * costs many times more per byte than small ones, so a body is decoded in windows.
 */
const WINDOW_BYTES = 32 * 1024

/** Buffer's own decoders of a byte range (what `toString(encoding, start, end)` calls). */
export interface SlicingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
}

export const EMPTY_BUFFER = Buffer.alloc(0) as SlicingBuffer

/**
 * Strings of a UTF-8 body read front to back: ranges that are ASCII are cut from a decoded window
 * of the body (a cut shares the window's memory: no copy, no large string), others are decoded on
 * their own.
 */
export class TextWindow {
  #buf = EMPTY_BUFFER
  /** Bytes [#start, #end) of the body, as text when they are all ASCII ('' when not). */
  #text = ''
  #start = 0
  #end = 0
  #ascii = false

  /** Starts on a body (valid UTF-8); `reset()` lets go of it. */
  reset(buf: SlicingBuffer = EMPTY_BUFFER): void {
    this.#buf = buf
    this.#text = ''
    this.#start = 0
    this.#end = 0
  }

  /** Bytes [start, end) as a string; they must not cut a UTF-8 sequence. */
  text(start: number, end: number): string {
    if (start < this.#start || end > this.#end) this.#move(start, end)
    if (!this.#ascii) return this.#buf.utf8Slice(start, end)
    return this.#text.slice(start - this.#start, end - this.#start)
  }

  #move(start: number, end: number): void {
    const buf = this.#buf
    this.#start = start
    this.#end = Math.min(buf.length, Math.max(end, start + WINDOW_BYTES))
    this.#ascii = isAscii(buf.subarray(start, this.#end))
    this.#text = this.#ascii ? buf.latin1Slice(start, this.#end) : ''
  }
}
