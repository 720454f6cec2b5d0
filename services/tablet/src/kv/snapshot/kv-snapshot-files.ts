import { open, stat } from 'node:fs/promises'
import { crc32c } from '@sluice/core/record'
import type { KvSnapshotFile } from './kv-snapshot-types.js'
import type { CheckpointFile } from './rocksdb-checkpoint.js'

const READ_CHUNK_BYTES = 1024 * 1024

/** CRC-32C of a whole local file, read in chunks. */
export async function fileCrc32c(path: string): Promise<number> {
  const fh = await open(path, 'r')
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    let crc = 0
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null)
      if (bytesRead === 0) return crc
      crc = crc32c(buf.subarray(0, bytesRead), crc)
    }
  } finally {
    await fh.close()
  }
}

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; results in input order. After
 * a failure no new call starts, and the first failure is thrown once every started call settled
 * (so the caller's cleanup never races a call still in flight).
 */
export async function mapBounded<I, O>(
  items: readonly I[],
  concurrency: number,
  fn: (item: I) => Promise<O>,
): Promise<O[]> {
  const results = new Array<O>(items.length)
  let next = 0
  let failure: { error: unknown } | null = null
  const worker = async () => {
    while (next < items.length && failure === null) {
      const i = next++
      try {
        results[i] = await fn(items[i])
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker))
  if (failure !== null) throw (failure as { error: unknown }).error
  return results
}

/**
 * Which local SST files are already in the BlobStore. A local file is known by its identity (name,
 * size, inode, modification time: SST files never change, and a hard link shares the inode); an
 * unknown file is matched against the shared files of the committed snapshots by name, size and
 * CRC-32C (after a restart or a restore, when nothing is known yet). Only files that a committed
 * snapshot still lists are ever reused, so a deleted object is never referred to again.
 */
export class SharedFileIndex {
  readonly #byIdentity = new Map<string, KvSnapshotFile>()

  async identity(file: CheckpointFile): Promise<string> {
    const s = await stat(file.path)
    return `${file.name}:${s.size}:${s.dev}:${s.ino}:${s.mtimeMs}`
  }

  /**
   * The committed shared file with the local file's content, or null; `crc32c` is set whenever
   * the local file had to be read (so that an upload need not read it again).
   */
  async match(
    file: CheckpointFile,
    committed: readonly KvSnapshotFile[],
  ): Promise<{ readonly reuse: KvSnapshotFile | null; readonly crc32c: number | null }> {
    const identity = await this.identity(file)
    const known = this.#byIdentity.get(identity)
    if (known !== undefined && committed.some(f => f.key === known.key)) return { reuse: known, crc32c: null }
    const candidates = committed.filter(
      f => f.role === 'shared' && f.name === file.name && f.size === file.size,
    )
    if (candidates.length === 0) return { reuse: null, crc32c: null }
    const crc = await fileCrc32c(file.path)
    const reuse = candidates.find(f => f.crc32c === crc) ?? null
    if (reuse !== null) this.#byIdentity.set(identity, reuse)
    return { reuse, crc32c: crc }
  }

  remember(identity: string, uploaded: KvSnapshotFile): void {
    this.#byIdentity.set(identity, uploaded)
  }

  /** Forgets files no committed snapshot lists any more. */
  retainOnly(committedKeys: ReadonlySet<string>): void {
    for (const [identity, file] of this.#byIdentity) {
      if (!committedKeys.has(file.key)) this.#byIdentity.delete(identity)
    }
  }
}
