import { FlussError } from '../errors/index.js'

/**
 * Query cursors: opaque to callers, base64url JSON inside. A cursor names the query it belongs to
 * (pk, prefix, direction) and the last sort key returned, so every backend resumes the same way and
 * a cursor passed to a different query is refused instead of silently skipping items.
 */
interface CursorState {
  readonly pk: string
  readonly prefix: string
  readonly reverse: boolean
  readonly lastSk: string
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify([state.pk, state.prefix, state.reverse, state.lastSk])).toString(
    'base64url',
  )
}

/** Returns the last sort key of the previous page; INVALID_REQUEST for a foreign or corrupt cursor. */
export function decodeCursor(cursor: string, pk: string, prefix: string, reverse: boolean): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[3] !== 'string') {
    throw new FlussError('INVALID_REQUEST', `query cursor '${cursor.slice(0, 40)}' is malformed`)
  }
  const [cPk, cPrefix, cReverse, lastSk] = parsed
  if (cPk !== pk || cPrefix !== prefix || cReverse !== reverse) {
    throw new FlussError(
      'INVALID_REQUEST',
      `query cursor belongs to another query (pk ${cPk}, prefix '${cPrefix}'), not to pk ${pk}, prefix '${prefix}'`,
    )
  }
  return lastSk
}
