import { open, stat, unlink } from 'node:fs/promises'
import { isAbsolute, join, resolve, sep } from 'node:path'
import { Readable } from 'node:stream'
import { assert, FlussError } from '../errors/index.js'
import {
  decodeListCursor,
  encodeListCursor,
  resolveRange,
  validateBlobKey,
  validateBlobPrefix,
  validateListLimit,
  validateRange,
} from './blob-key.js'
import type {
  BlobBody,
  BlobInfo,
  BlobStore,
  GetOptions,
  ListOptions,
  ListPage,
  PutOptions,
  UploadOptions,
} from './blob-store.js'
import { isReadable, validatePartBytes, withSource } from './body.js'
import { walkKeys } from './fs-walk.js'
import { writeAtomically, writeError } from './fs-write.js'

/**
 * BlobStore on a local directory with S3's key layout: key `a/b/c` is the file `<root>/a/b/c`.
 * Writes are atomic (temp file, fsync, rename); `ifNoneMatch` is enforced with a hard link.
 * Unlike S3, a key cannot also be the folder of other keys (`a` and `a/b`): such a put fails with
 * INVALID_REQUEST. Deleting leaves empty folders behind; they hold no keys.
 */
export class FsBlobStore implements BlobStore {
  readonly capabilities = { conditionalPut: true }
  readonly root: string
  #closed = false

  constructor(root: string) {
    if (!isAbsolute(root))
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `blob store root must be an absolute path, got '${root}'`,
      )
    this.root = resolve(root)
  }

  async put(key: string, body: BlobBody, options: PutOptions = {}): Promise<BlobInfo> {
    this.#checkOpen()
    validateBlobKey(key)
    if (isReadable(body)) return withSource(body, chunks => this.#write(key, chunks, options))
    return this.#write(key, [body], options)
  }

  async upload(key: string, source: string | Readable, options: UploadOptions = {}): Promise<BlobInfo> {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.partBytes !== undefined) validatePartBytes(options.partBytes, 1)
    return withSource(source, chunks => this.#write(key, chunks, options))
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array | undefined> {
    const opened = await this.#openRange(key, options)
    if (opened === undefined) return undefined
    const { fh, start, end } = opened
    try {
      const out = Buffer.alloc(end - start)
      let done = 0
      while (done < out.length) {
        const { bytesRead } = await fh.read(out, done, out.length - done, start + done)
        if (bytesRead === 0) break
        done += bytesRead
      }
      return out.subarray(0, done)
    } finally {
      await fh.close()
    }
  }

  async getStream(key: string, options: GetOptions = {}): Promise<Readable | undefined> {
    const opened = await this.#openRange(key, options)
    if (opened === undefined) return undefined
    const { fh, start, end } = opened
    if (end === start) {
      await fh.close()
      return Readable.from([])
    }
    return fh.createReadStream({ start, end: end - 1, autoClose: true })
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    this.#checkOpen()
    validateBlobKey(key)
    return this.#stat(key)
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListPage> {
    this.#checkOpen()
    validateBlobPrefix(prefix)
    const limit = validateListLimit(options.limit)
    const after = options.cursor === undefined ? undefined : decodeListCursor(options.cursor, prefix)
    const items: BlobInfo[] = []
    let more = false
    for await (const key of walkKeys(this.root, prefix, after)) {
      if (items.length === limit) {
        more = true
        break
      }
      const info = await this.#stat(key)
      if (info !== undefined) items.push(info)
    }
    return more ? { items, cursor: encodeListCursor(items[items.length - 1].key) } : { items }
  }

  async delete(keys: readonly string[]): Promise<void> {
    this.#checkOpen()
    keys.forEach(validateBlobKey)
    for (const key of keys) {
      try {
        await unlink(this.#path(key))
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') continue
        if (code === 'EISDIR' || code === 'EPERM') continue // a folder of other keys, not an object
        throw new FlussError('STORAGE_EXCEPTION', `deleting blob ${key}: ${(e as Error).message}`, {
          cause: e,
        })
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true
  }

  async #write(
    key: string,
    chunks: AsyncIterable<unknown> | Iterable<Uint8Array>,
    options: PutOptions,
  ): Promise<BlobInfo> {
    const target = this.#path(key)
    const exclusive = options.ifNoneMatch === '*'
    try {
      await writeAtomically(this.root, target, chunks, exclusive)
    } catch (e) {
      throw await writeError(e, key, target, exclusive)
    }
    const info = await this.#stat(key)
    assert(info !== undefined, `blob ${key} missing right after it was written`)
    return info
  }

  async #openRange(key: string, options: GetOptions) {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.range) validateRange(options.range)
    let fh: Awaited<ReturnType<typeof open>>
    try {
      fh = await open(this.#path(key), 'r')
    } catch (e) {
      if (isMissing(e)) return undefined
      throw new FlussError('STORAGE_EXCEPTION', `reading blob ${key}: ${(e as Error).message}`, { cause: e })
    }
    const s = await fh.stat()
    if (!s.isFile()) {
      await fh.close()
      return undefined
    }
    return { fh, ...resolveRange(options.range, s.size) }
  }

  async #stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const s = await stat(this.#path(key), { bigint: true })
      if (!s.isFile()) return undefined
      // Identity plus size plus modification time: changes whenever a write replaces the file.
      const etag = `${s.ino.toString(16)}-${s.size.toString(16)}-${s.mtimeNs.toString(16)}`
      return { key, size: Number(s.size), etag }
    } catch (e) {
      if (isMissing(e)) return undefined
      throw new FlussError('STORAGE_EXCEPTION', `stat of blob ${key}: ${(e as Error).message}`, { cause: e })
    }
  }

  #path(key: string): string {
    const path = join(this.root, ...key.split('/'))
    const base = this.root.endsWith(sep) ? this.root : this.root + sep
    assert(path.startsWith(base), `blob key ${key} resolved outside the root`)
    return path
  }

  #checkOpen(): void {
    assert(!this.#closed, 'FsBlobStore used after close()')
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR'
}
