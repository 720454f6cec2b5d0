import { randomUUID } from 'node:crypto'
import { link, mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { FlussError } from '../errors/index.js'
import { TMP_SEGMENT_PREFIX } from './blob-key.js'
import { toBuffer } from './body.js'

/**
 * Atomic file writes: the bytes go to a temp file under `<root>/.sluice-tmp`, are fsynced, then
 * renamed over the target (or hard-linked when it must not exist yet, which fails with EEXIST
 * atomically), and the parent directory is fsynced. Readers see the old object or the new one,
 * never a torn one.
 */
export async function writeAtomically(
  root: string,
  target: string,
  chunks: AsyncIterable<unknown> | Iterable<Uint8Array>,
  exclusive: boolean,
): Promise<number> {
  const tmpDir = join(root, TMP_SEGMENT_PREFIX)
  await mkdir(tmpDir, { recursive: true })
  const tmp = join(tmpDir, randomUUID())
  try {
    const size = await writeSynced(tmp, chunks)
    await mkdir(dirname(target), { recursive: true })
    if (exclusive) await link(tmp, target)
    else await rename(tmp, target)
    await syncDir(dirname(target))
    return size
  } finally {
    await rm(tmp, { force: true })
  }
}

async function writeSynced(
  path: string,
  chunks: AsyncIterable<unknown> | Iterable<Uint8Array>,
): Promise<number> {
  const fh = await open(path, 'wx')
  let size = 0
  try {
    for await (const chunk of chunks) {
      const buf = toBuffer(chunk)
      let done = 0
      while (done < buf.length) {
        const { bytesWritten } = await fh.write(buf, done, buf.length - done)
        done += bytesWritten
      }
      size += buf.length
    }
    await fh.sync()
  } finally {
    await fh.close()
  }
  return size
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Maps a filesystem error of a write to a FlussError (LAKE_COMMIT_CONFLICT for an exclusive loser). */
export async function writeError(
  e: unknown,
  key: string,
  target: string,
  exclusive: boolean,
): Promise<FlussError> {
  if (e instanceof FlussError) return e
  const code = (e as NodeJS.ErrnoException).code
  const msg = e instanceof Error ? e.message : String(e)
  if (code === 'EEXIST' && exclusive) {
    const isFile = await stat(target).then(
      s => s.isFile(),
      () => false,
    )
    if (isFile)
      return new FlussError('LAKE_COMMIT_CONFLICT', `blob ${key} already exists (put with ifNoneMatch '*')`)
  }
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new FlussError(
      'INVALID_REQUEST',
      `blob ${key} clashes with another key on the filesystem (a key cannot also be a key's folder): ${msg}`,
      { cause: e },
    )
  }
  if (code === 'ENOSPC') return new FlussError('DISK_FULL', `writing blob ${key}: ${msg}`, { cause: e })
  return new FlussError('STORAGE_EXCEPTION', `writing blob ${key}: ${msg}`, { cause: e })
}
