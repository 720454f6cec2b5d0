import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { assert, FlussError } from '../errors/index.js'
import {
  compareBlobKeys,
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
import { isReadable, readAll, validatePartBytes, withSource } from './body.js'

interface Stored {
  readonly bytes: Uint8Array
  readonly etag: string
}

/** BlobStore in memory, for unit tests; enforces the same key rules and conditional writes as S3. */
export class MemoryBlobStore implements BlobStore {
  readonly capabilities = { conditionalPut: true }
  readonly #objects = new Map<string, Stored>()
  #closed = false

  async put(key: string, body: BlobBody, options: PutOptions = {}): Promise<BlobInfo> {
    this.#checkOpen()
    validateBlobKey(key)
    const bytes = isReadable(body) ? await withSource(body, readAll) : Uint8Array.from(body)
    return this.#store(key, bytes, options)
  }

  async upload(key: string, source: string | Readable, options: UploadOptions = {}): Promise<BlobInfo> {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.partBytes !== undefined) validatePartBytes(options.partBytes, 1)
    const bytes = await withSource(source, readAll)
    return this.#store(key, bytes, options)
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array | undefined> {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.range) validateRange(options.range)
    const stored = this.#objects.get(key)
    if (stored === undefined) return undefined
    const { start, end } = resolveRange(options.range, stored.bytes.length)
    return stored.bytes.slice(start, end)
  }

  async getStream(key: string, options: GetOptions = {}): Promise<Readable | undefined> {
    const bytes = await this.get(key, options)
    return bytes === undefined ? undefined : Readable.from([Buffer.from(bytes)])
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    this.#checkOpen()
    validateBlobKey(key)
    const stored = this.#objects.get(key)
    return stored === undefined ? undefined : { key, size: stored.bytes.length, etag: stored.etag }
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListPage> {
    this.#checkOpen()
    validateBlobPrefix(prefix)
    const limit = validateListLimit(options.limit)
    const after = options.cursor === undefined ? undefined : decodeListCursor(options.cursor, prefix)
    const keys = [...this.#objects.keys()]
      .filter(k => k.startsWith(prefix) && (after === undefined || compareBlobKeys(k, after) > 0))
      .sort(compareBlobKeys)
    const items = keys.slice(0, limit).map(key => {
      const stored = this.#objects.get(key) as Stored
      return { key, size: stored.bytes.length, etag: stored.etag }
    })
    return keys.length > limit ? { items, cursor: encodeListCursor(items[items.length - 1].key) } : { items }
  }

  async delete(keys: readonly string[]): Promise<void> {
    this.#checkOpen()
    keys.forEach(validateBlobKey)
    for (const key of keys) this.#objects.delete(key)
  }

  async close(): Promise<void> {
    this.#closed = true
  }

  #store(key: string, bytes: Uint8Array, options: PutOptions): BlobInfo {
    if (options.ifNoneMatch === '*' && this.#objects.has(key)) {
      throw new FlussError('LAKE_COMMIT_CONFLICT', `blob ${key} already exists (put with ifNoneMatch '*')`)
    }
    const etag = createHash('md5').update(bytes).digest('hex')
    this.#objects.set(key, { bytes, etag })
    return { key, size: bytes.length, etag }
  }

  #checkOpen(): void {
    assert(!this.#closed, 'MemoryBlobStore used after close()')
  }
}
