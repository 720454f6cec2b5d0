import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** Total size of the regular files under `dir` (0 when it does not exist). */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0
  let entries: import('node:fs').Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    if (e.isDirectory()) total += await dirBytes(path)
    else if (e.isFile()) total += (await stat(path)).size
  }
  return total
}
