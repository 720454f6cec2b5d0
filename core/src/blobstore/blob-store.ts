import type { Readable } from 'node:stream'

/**
 * Object storage for cold data: sealed remote-log segments, KV snapshots, lake tables. S3 in the
 * cloud; the local filesystem (same key layout) or S3 emulators locally; memory in unit tests.
 *
 * Keys are '/'-separated relative paths (`remote-log/7/_/0/00000000000000000000.log`): no leading
 * or trailing '/', no empty, '.' or '..' segments, no backslash or NUL, at most 1024 UTF-8 bytes,
 * and no segment starting with `.sluice-tmp`. Bad keys are refused with INVALID_REQUEST.
 *
 * Missing objects are not errors: `head`, `get` and `getStream` return undefined.
 */
export type BlobBody = Uint8Array | Readable

/**
 * A byte range: `[start, end)` (end exclusive, clamped to the object size, to the end when
 * omitted), or the last `suffixBytes` bytes. A range starting at or past the end reads zero bytes.
 */
export type ByteRange = { readonly start: number; readonly end?: number } | { readonly suffixBytes: number }

export interface BlobInfo {
  readonly key: string
  readonly size: number
  /** Opaque; changes when the content changes (S3: the ETag without quotes). */
  readonly etag: string
}

export interface PutOptions {
  /** `'*'`: write only if no object exists under the key, else LAKE_COMMIT_CONFLICT. */
  readonly ifNoneMatch?: '*'
}

export interface GetOptions {
  readonly range?: ByteRange
}

export interface ListOptions {
  /** The `cursor` of the previous page. */
  readonly cursor?: string
  /** Page size, 1..LIST_LIMIT_MAX; default LIST_LIMIT_MAX. */
  readonly limit?: number
}

export interface ListPage {
  /** Keys in UTF-8 byte order, every key under the prefix (no delimiter grouping). */
  readonly items: readonly BlobInfo[]
  /** Present when more keys may follow. */
  readonly cursor?: string
}

export interface UploadOptions extends PutOptions {
  /** Part size for multipart uploads; default the store's part size. */
  readonly partBytes?: number
}

export interface BlobStoreCapabilities {
  /** Whether `ifNoneMatch: '*'` is enforced; when false, such writes are refused, never faked. */
  readonly conditionalPut: boolean
}

export const LIST_LIMIT_MAX = 1000
export const KEY_BYTES_MAX = 1024
/** S3's minimum part size (except the last part). */
export const PART_BYTES_MIN = 5 * 1024 * 1024
export const PART_BYTES_DEFAULT = 16 * 1024 * 1024

export interface BlobStore {
  readonly capabilities: BlobStoreCapabilities
  /** Writes a whole object; a stream body is uploaded like `upload` (multipart above the part size). */
  put(key: string, body: BlobBody, options?: PutOptions): Promise<BlobInfo>
  get(key: string, options?: GetOptions): Promise<Uint8Array | undefined>
  getStream(key: string, options?: GetOptions): Promise<Readable | undefined>
  head(key: string): Promise<BlobInfo | undefined>
  list(prefix: string, options?: ListOptions): Promise<ListPage>
  /** Deletes the keys that exist; missing keys are ignored. */
  delete(keys: readonly string[]): Promise<void>
  /** Uploads a file (by path) or a stream, in parts of `partBytes` when larger than one part. */
  upload(key: string, source: string | Readable, options?: UploadOptions): Promise<BlobInfo>
  close(): Promise<void>
}
