import { FlussError } from '../errors/index.js'
import { type ByteRange, KEY_BYTES_MAX, LIST_LIMIT_MAX } from './blob-store.js'

/** Input checks shared by every BlobStore, so that all backends refuse the same keys. */

/** Directory (under a filesystem store's root) for in-flight writes; no key may use the name. */
export const TMP_SEGMENT_PREFIX = '.sluice-tmp'

function invalid(message: string): FlussError {
  return new FlussError('INVALID_REQUEST', message)
}

function checkChars(text: string, what: string): void {
  if (text.includes('\\') || text.includes('\0'))
    throw invalid(`${what} ${JSON.stringify(text)} contains a backslash or NUL`)
  if (text.startsWith('/')) throw invalid(`${what} ${JSON.stringify(text)} starts with '/'`)
  const bytes = Buffer.byteLength(text)
  if (bytes > KEY_BYTES_MAX) throw invalid(`${what} is ${bytes} bytes, at most ${KEY_BYTES_MAX} allowed`)
}

export function validateBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0)
    throw invalid(`blob key must be a non-empty string, got ${JSON.stringify(key)}`)
  checkChars(key, 'blob key')
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw invalid(`blob key ${JSON.stringify(key)} has an empty, '.' or '..' segment`)
    }
    if (segment.startsWith(TMP_SEGMENT_PREFIX))
      throw invalid(`blob key ${JSON.stringify(key)} uses the reserved name ${TMP_SEGMENT_PREFIX}`)
  }
}

/** A list prefix: any leading part of a valid key ('' lists everything). */
export function validateBlobPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw invalid(`list prefix must be a string, got ${typeof prefix}`)
  checkChars(prefix, 'list prefix')
}

export function validateListLimit(limit: number | undefined): number {
  const n = limit ?? LIST_LIMIT_MAX
  if (!Number.isSafeInteger(n) || n < 1 || n > LIST_LIMIT_MAX)
    throw invalid(`list limit must be in [1, ${LIST_LIMIT_MAX}], got ${n}`)
  return n
}

/** List cursors carry the last key returned (base64url), so every backend resumes the same way. */
export function encodeListCursor(lastKey: string): string {
  return Buffer.from(lastKey).toString('base64url')
}

export function decodeListCursor(cursor: string, prefix: string): string {
  const key = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('utf8') : ''
  if (key.length === 0 || encodeListCursor(key) !== cursor || !key.startsWith(prefix)) {
    throw invalid(`list cursor '${String(cursor).slice(0, 40)}' is malformed or belongs to another prefix`)
  }
  return key
}

export function validateRange(range: ByteRange): void {
  if ('suffixBytes' in range) {
    if (!Number.isSafeInteger(range.suffixBytes) || range.suffixBytes < 0) {
      throw invalid(`suffix range needs suffixBytes >= 0, got ${range.suffixBytes}`)
    }
    return
  }
  const { start, end } = range
  if (!Number.isSafeInteger(start) || start < 0)
    throw invalid(`range start must be an integer >= 0, got ${start}`)
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) {
    throw invalid(`range end must be an integer >= start (${start}), got ${end}`)
  }
}

/** The absolute `[start, end)` a range selects in an object of `size` bytes (clamped; may be empty). */
export function resolveRange(range: ByteRange | undefined, size: number): { start: number; end: number } {
  if (range === undefined) return { start: 0, end: size }
  if ('suffixBytes' in range) return { start: Math.max(0, size - range.suffixBytes), end: size }
  const start = Math.min(range.start, size)
  return { start, end: Math.max(start, Math.min(range.end ?? size, size)) }
}

/** UTF-8 byte order of keys, as S3 lists them. */
export function compareBlobKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}
