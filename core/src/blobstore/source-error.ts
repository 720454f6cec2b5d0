import { FlussError } from '../errors/index.js'

/** An error while reading an upload source: a missing file is the caller's mistake, the rest is I/O. */
export function sourceError(source: unknown, e: unknown): FlussError {
  if (e instanceof FlussError) return e
  const code = (e as NodeJS.ErrnoException | undefined)?.code
  const what = typeof source === 'string' ? `upload source file ${source}` : 'upload source stream'
  const msg = e instanceof Error ? e.message : String(e)
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
    return new FlussError('INVALID_REQUEST', `${what} cannot be read: ${msg}`, { cause: e })
  }
  return new FlussError('STORAGE_EXCEPTION', `${what} failed: ${msg}`, { cause: e })
}
