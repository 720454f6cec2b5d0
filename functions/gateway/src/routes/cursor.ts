import type { BucketPosition } from '../backend/gateway-backend.js'
import { invalidArgument } from '../errors/gateway-error.js'

/**
 * The cursor of a log scan: opaque to clients, base64url of `{"v":1,"t":<tableId>,"p":[[partitionId
 * or null, bucket, nextOffset], ...]}`. The table id ties it to one incarnation of the table, so a
 * cursor for a dropped and recreated table is refused.
 */
const VERSION = 1

export function encodeCursor(tableId: number, positions: readonly BucketPosition[]): string {
  const p = positions.map(x => [x.partitionId ?? null, x.bucket, x.offset])
  return Buffer.from(JSON.stringify({ v: VERSION, t: tableId, p })).toString('base64url')
}

const isIndex = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0

export function decodeCursor(cursor: string, tableId: number): BucketPosition[] {
  const bad = (why: string) => invalidArgument(`cursor: ${why}`)
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad('not a cursor returned by this API')
  let state: unknown
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw bad('not a cursor returned by this API')
  }
  const s = state as { v?: unknown; t?: unknown; p?: unknown }
  if (typeof s !== 'object' || s === null || s.v !== VERSION || !Array.isArray(s.p))
    throw bad('not a cursor returned by this API')
  if (s.t !== tableId) throw bad('it belongs to another table (or an earlier table of the same name)')
  return s.p.map(entry => {
    if (!Array.isArray(entry) || entry.length !== 3) throw bad('malformed position')
    const [partitionId, bucket, offset] = entry as unknown[]
    if (!(partitionId === null || isIndex(partitionId)) || !isIndex(bucket) || !isIndex(offset))
      throw bad('malformed position')
    return { ...(partitionId === null ? {} : { partitionId }), bucket, offset }
  })
}
