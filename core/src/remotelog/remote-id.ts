import { randomBytes } from 'node:crypto'
import { assert } from '../errors/index.js'

/**
 * Ids of remote objects (log segments, manifest bodies): UUID version 7, whose first 48 bits are
 * the Unix time in milliseconds of creation. Fluss's clients parse segment ids with
 * `UUID.fromString`, which accepts any version; the embedded time lets a sweeper tell an
 * abandoned upload (old) from one still in flight (young) from the key alone, on any server.
 */
const REMOTE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TIMESTAMP_MAX = 2 ** 48 - 1

export function newRemoteId(nowMs: number): string {
  assert(Number.isSafeInteger(nowMs) && nowMs >= 0 && nowMs <= TIMESTAMP_MAX, `bad id time ${nowMs}`)
  const bytes = randomBytes(16)
  bytes.writeUIntBE(nowMs, 0, 6)
  bytes[6] = 0x70 | (bytes[6] & 0x0f)
  bytes[8] = 0x80 | (bytes[8] & 0x3f)
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function isRemoteId(text: string): boolean {
  return REMOTE_ID.test(text)
}

/** Creation time of an id made by `newRemoteId`; null for anything else. */
export function remoteIdTimestampMs(id: string): number | null {
  if (!isRemoteId(id)) return null
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
}
