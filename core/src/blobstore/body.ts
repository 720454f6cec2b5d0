import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { FlussError } from '../errors/index.js'
import { sourceError } from './source-error.js'

/** Body helpers: streams to bytes, and streams cut into fixed-size parts with bounded memory. */

export function isReadable(body: unknown): body is Readable {
  return (
    body instanceof Readable ||
    (typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function')
  )
}

export function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (typeof chunk === 'string') return Buffer.from(chunk)
  throw new FlussError('INVALID_REQUEST', `blob body stream yielded a ${typeof chunk}, expected bytes`)
}

/** Reads a whole stream into memory. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(toBuffer(chunk))
  return Buffer.concat(chunks)
}

/**
 * Cuts a stream into parts of exactly `partBytes` (the last may be shorter). Holds at most one part
 * plus one incoming chunk in memory. Yields nothing for an empty stream.
 */
export async function* partsOf(stream: AsyncIterable<unknown>, partBytes: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    let buf = toBuffer(chunk)
    while (size + buf.length >= partBytes) {
      const take = partBytes - size
      pending.push(buf.subarray(0, take))
      yield Buffer.concat(pending)
      pending = []
      size = 0
      buf = buf.subarray(take)
    }
    if (buf.length > 0) {
      pending.push(buf)
      size += buf.length
    }
  }
  if (size > 0) yield Buffer.concat(pending)
}

/**
 * A file path or a stream, as a stream (files are read in 1 MiB chunks). The file is opened here,
 * so a missing file fails now (INVALID_REQUEST) rather than as an unheard stream error later.
 */
export async function openSource(source: string | Readable): Promise<Readable> {
  if (typeof source !== 'string') return source
  try {
    const fh = await open(source, 'r')
    return fh.createReadStream({ highWaterMark: 1024 * 1024, autoClose: true })
  } catch (e) {
    throw sourceError(source, e)
  }
}

/** Runs `use` on the source stream and destroys the stream afterwards, consumed or not. */
export async function withSource<T>(
  source: string | Readable,
  use: (chunks: AsyncIterable<unknown>) => Promise<T>,
): Promise<T> {
  const stream = await openSource(source)
  try {
    return await use(guardSource(source, stream))
  } finally {
    stream.destroy()
  }
}

export function validatePartBytes(partBytes: number, min: number): number {
  if (!Number.isSafeInteger(partBytes) || partBytes < min) {
    throw new FlussError('INVALID_REQUEST', `part size must be an integer >= ${min} bytes, got ${partBytes}`)
  }
  return partBytes
}

/** Re-throws errors raised by the caller's source as source errors, so they are not taken for store I/O errors. */
export async function* guardSource(
  source: string | Readable,
  stream: AsyncIterable<unknown>,
): AsyncGenerator<unknown> {
  try {
    for await (const chunk of stream) yield chunk
  } catch (e) {
    throw sourceError(source, e)
  }
}

/** Skips `skip` bytes of a stream and ends it after `limit` more; the source is destroyed at the end. */
export function sliceStream(source: Readable, skip: number, limit: number | undefined): Readable {
  return Readable.from(
    (async function* () {
      let toSkip = skip
      let left = limit ?? Number.POSITIVE_INFINITY
      try {
        for await (const chunk of source) {
          let buf = toBuffer(chunk)
          if (toSkip > 0) {
            const n = Math.min(toSkip, buf.length)
            buf = buf.subarray(n)
            toSkip -= n
          }
          if (buf.length === 0) continue
          if (buf.length >= left) {
            yield buf.subarray(0, left)
            return
          }
          left -= buf.length
          yield buf
        }
      } finally {
        source.destroy()
      }
    })(),
  )
}

/** The same bytes, with errors raised while reading replaced by `map(error)`. */
export function mapStreamErrors(source: Readable, map: (e: unknown) => Error): Readable {
  return Readable.from(
    (async function* () {
      try {
        for await (const chunk of source) yield chunk
      } catch (e) {
        throw map(e)
      } finally {
        source.destroy()
      }
    })(),
  )
}
