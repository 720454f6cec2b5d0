import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { expect } from 'vitest'
import { FlussError } from '../../errors/index.js'

/** A key prefix no other case (or concurrent run against a shared emulator) uses. */
export function uniquePrefix(label: string): string {
  return `contract/${label}/${randomUUID()}/`
}

export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

export function textOf(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
}

/** Bytes as hex, so Buffers and Uint8Arrays compare by content. */
export function hex(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined
    ? undefined
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export function randomData(size: number): Buffer {
  return randomBytes(size)
}

/** A stream of `data` in chunks of `chunkBytes` (odd sizes exercise part assembly). */
export function chunked(data: Uint8Array, chunkBytes: number): Readable {
  const chunks: Buffer[] = []
  for (let i = 0; i < data.length; i += chunkBytes) chunks.push(Buffer.from(data.subarray(i, i + chunkBytes)))
  return Readable.from(chunks)
}

/** A stream that yields some bytes and then fails. */
export function failingStream(bytesBeforeFailure: number): Readable {
  return Readable.from(
    (async function* () {
      yield Buffer.alloc(bytesBeforeFailure, 7)
      throw new Error('source broke')
    })(),
  )
}

export async function streamBytes(stream: Readable | undefined): Promise<Uint8Array | undefined> {
  if (stream === undefined) return undefined
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(Buffer.from(c))
  return Buffer.concat(chunks)
}

export async function expectFlussError(call: () => Promise<unknown>, name?: string): Promise<FlussError> {
  let e: unknown
  try {
    await call()
  } catch (err) {
    e = err
  }
  expect(e, `expected a FlussError${name ? `(${name})` : ''}`).toBeInstanceOf(FlussError)
  if (name !== undefined) expect((e as FlussError).errorName).toBe(name)
  return e as FlussError
}

/** A test title that states why the case is skipped, when it is. */
export function titled(title: string, skipReason: string | undefined): string {
  return skipReason === undefined ? title : `${title} (skipped: ${skipReason})`
}
