import { opendir } from 'node:fs/promises'
import { join } from 'node:path'
import { compareBlobKeys, TMP_SEGMENT_PREFIX } from './blob-key.js'

/**
 * Walks the files under a root directory as blob keys, in S3's order (UTF-8 bytes of the whole
 * key). Sorting each directory's entries by `name` for files and `name + '/'` for directories gives
 * exactly that order, since every key below a directory starts with `name/`. Subtrees that cannot
 * hold keys under `prefix` or after `after` are skipped without being read.
 */
export async function* walkKeys(
  root: string,
  prefix: string,
  after: string | undefined,
): AsyncGenerator<string> {
  yield* walkDir(root, '', prefix, after)
}

async function* walkDir(
  dir: string,
  keyPrefix: string,
  prefix: string,
  after: string | undefined,
): AsyncGenerator<string> {
  const entries = await readEntries(dir, keyPrefix)
  for (const { name, isDir } of entries) {
    const key = keyPrefix + name
    if (isDir) {
      const sub = `${key}/`
      if (!couldHold(sub, prefix, after)) continue
      yield* walkDir(join(dir, name), sub, prefix, after)
    } else if (key.startsWith(prefix) && (after === undefined || compareBlobKeys(key, after) > 0)) {
      yield key
    }
  }
}

/** Whether some key starting with `sub` can start with `prefix` and sort after `after`. */
function couldHold(sub: string, prefix: string, after: string | undefined): boolean {
  if (!(sub.startsWith(prefix) || prefix.startsWith(sub))) return false
  // Keys under `sub` all sort before `after` when `after` leaves `sub` at a greater byte.
  return after === undefined || after.startsWith(sub) || compareBlobKeys(sub, after) > 0
}

interface Entry {
  readonly name: string
  readonly isDir: boolean
  readonly sortKey: string
}

async function readEntries(dir: string, keyPrefix: string): Promise<Entry[]> {
  const entries: Entry[] = []
  let handle: Awaited<ReturnType<typeof opendir>>
  try {
    handle = await opendir(dir)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      return []
    throw e
  }
  for await (const d of handle) {
    if (keyPrefix === '' && d.name.startsWith(TMP_SEGMENT_PREFIX)) continue
    if (d.isDirectory()) entries.push({ name: d.name, isDir: true, sortKey: `${d.name}/` })
    else if (d.isFile()) entries.push({ name: d.name, isDir: false, sortKey: d.name })
  }
  return entries.sort((a, b) => compareBlobKeys(a.sortKey, b.sortKey))
}
