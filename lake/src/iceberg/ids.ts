import { randomBytes, randomInt, randomUUID } from 'node:crypto'

/**
 * Identifiers of lake objects.
 *
 * - Snapshot ids are positive and below 2^53, so that every JSON reader keeps them exact (other
 *   writers' ids may be larger; they are parsed losslessly as bigint).
 * - File names carry a UUID version 7, whose first 48 bits are the creation time in milliseconds.
 *   Orphan cleanup reads a file's age from its name, since object listings carry no usable time
 *   on every store.
 */

/** A fresh snapshot id in [1, 2^53 - 1], different from every id in `taken`. */
export function newSnapshotId(taken: ReadonlySet<bigint> = new Set()): bigint {
  for (;;) {
    const high = BigInt(randomInt(0, 2 ** 21))
    const low = BigInt(randomInt(0, 2 ** 32))
    const id = (high << 32n) | low
    if (id > 0n && !taken.has(id)) return id
  }
}

/** A random v4 UUID (table uuids). */
export function newTableUuid(): string {
  return randomUUID()
}

/** A UUID version 7 whose timestamp is `nowMs`. */
export function uuidV7(nowMs: number): string {
  const bytes = randomBytes(16)
  let ms = BigInt(Math.max(0, Math.floor(nowMs)))
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn)
    ms >>= 8n
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const UUID_V7 = /([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/

/** The creation time of a file named with `uuidV7`, or undefined when its name carries none. */
export function fileTimeMs(fileName: string): number | undefined {
  const m = UUID_V7.exec(fileName)
  if (m === null) return undefined
  return Number.parseInt(m[1] + m[2], 16)
}

/** The last path segment of a location. */
export function baseName(location: string): string {
  return location.slice(location.lastIndexOf('/') + 1)
}
