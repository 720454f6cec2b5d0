import type { Readable } from 'node:stream'
import type {
  BlobBody,
  BlobInfo,
  BlobStore,
  GetOptions,
  ListOptions,
  ListPage,
  PutOptions,
  UploadOptions,
} from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'

export type BlobOp = 'put' | 'get' | 'delete' | 'list' | 'head'

/**
 * A BlobStore for fault tests: passes every call to `inner`, except that calls matching a rule
 * fail with STORAGE_EXCEPTION (what the S3 adapter reports for a 5xx or a dropped connection)
 * while the rule has failures left.
 */
export class FaultyBlobStore implements BlobStore {
  readonly capabilities: BlobStore['capabilities']
  private readonly rules: { op: BlobOp; keyPattern: RegExp; remaining: number }[] = []
  /** Calls that failed, as `op key`. */
  readonly failures: string[] = []

  constructor(private readonly inner: BlobStore) {
    this.capabilities = inner.capabilities
  }

  /** Fails the next `times` calls of `op` on keys matching `keyPattern`. */
  failNext(op: BlobOp, keyPattern: RegExp, times = 1): void {
    this.rules.push({ op, keyPattern, remaining: times })
  }

  private check(op: BlobOp, key: string): void {
    const rule = this.rules.find(r => r.op === op && r.remaining > 0 && r.keyPattern.test(key))
    if (rule === undefined) return
    rule.remaining--
    this.failures.push(`${op} ${key}`)
    throw new FlussError('STORAGE_EXCEPTION', `injected ${op} failure on ${key}`)
  }

  async put(key: string, body: BlobBody, options?: PutOptions): Promise<BlobInfo> {
    this.check('put', key)
    return this.inner.put(key, body, options)
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array | undefined> {
    this.check('get', key)
    return this.inner.get(key, options)
  }

  async getStream(key: string, options?: GetOptions): Promise<Readable | undefined> {
    this.check('get', key)
    return this.inner.getStream(key, options)
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    this.check('head', key)
    return this.inner.head(key)
  }

  async list(prefix: string, options?: ListOptions): Promise<ListPage> {
    this.check('list', prefix)
    return this.inner.list(prefix, options)
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.check('delete', k)
    return this.inner.delete(keys)
  }

  async upload(key: string, source: string | Readable, options?: UploadOptions): Promise<BlobInfo> {
    this.check('put', key)
    return this.inner.upload(key, source, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
