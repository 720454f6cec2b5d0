import { Readable } from 'node:stream'
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3'
import { assert, FlussError } from '../../errors/index.js'
import type { AwsClientOptions } from '../../metastore/aws-options.js'
import {
  decodeListCursor,
  encodeListCursor,
  validateBlobKey,
  validateBlobPrefix,
  validateListLimit,
  validateRange,
} from '../blob-key.js'
import {
  type BlobBody,
  type BlobInfo,
  type BlobStore,
  type GetOptions,
  type ListOptions,
  type ListPage,
  PART_BYTES_DEFAULT,
  PART_BYTES_MIN,
  type PutOptions,
  type UploadOptions,
} from '../blob-store.js'
import { isReadable, mapStreamErrors, readAll, validatePartBytes, withSource } from '../body.js'
import { isS3InvalidRange, isS3NotFound, translateS3Error } from './s3-errors.js'
import { bareEtag, putBytes, type S3Target, uploadStream } from './s3-multipart.js'
import { requestedRange, trimToRange } from './s3-range.js'

export interface S3BlobStoreOptions extends AwsClientOptions {
  readonly bucket: string
  /** Key prefix inside the bucket (no leading or trailing '/'); '' for the bucket root. */
  readonly prefix?: string
  /** Path-style addressing (`endpoint/bucket/key`); emulators need it. Default: true when `endpoint` is set. */
  readonly forcePathStyle?: boolean
  /** Multipart part size; default PART_BYTES_DEFAULT, at least PART_BYTES_MIN. */
  readonly partBytes?: number
  /** Whether the endpoint enforces If-None-Match on writes (S3, LocalStack, moto do; s3rver does not). Default true. */
  readonly conditionalPut?: boolean
  /** A client to use instead of building one; the caller keeps ownership. */
  readonly client?: S3Client
}

const DELETE_BATCH_MAX = 1000

export function createS3Client(o: AwsClientOptions & { readonly forcePathStyle?: boolean }): S3Client {
  return new S3Client({
    ...(o.region === undefined ? {} : { region: o.region }),
    ...(o.endpoint === undefined ? {} : { endpoint: o.endpoint }),
    ...(o.credentials === undefined ? {} : { credentials: o.credentials }),
    forcePathStyle: o.forcePathStyle ?? o.endpoint !== undefined,
    // Checksums only where S3 demands them: default streaming checksums use aws-chunked framing,
    // which some emulators store verbatim (corrupting the object).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: o.maxAttempts ?? 3,
  })
}

/** BlobStore on an S3 bucket (or an S3-compatible endpoint). */
export class S3BlobStore implements BlobStore {
  readonly capabilities: { readonly conditionalPut: boolean }
  readonly #client: S3Client
  readonly #ownsClient: boolean
  readonly #bucket: string
  readonly #prefix: string
  readonly #partBytes: number
  #closed = false

  constructor(options: S3BlobStoreOptions) {
    const prefix = options.prefix ?? ''
    if (prefix.startsWith('/') || prefix.endsWith('/')) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `S3 key prefix '${prefix}' must not start or end with '/'`,
      )
    }
    this.#bucket = options.bucket
    this.#prefix = prefix === '' ? '' : `${prefix}/`
    this.#partBytes = validatePartBytes(options.partBytes ?? PART_BYTES_DEFAULT, PART_BYTES_MIN)
    this.capabilities = { conditionalPut: options.conditionalPut ?? true }
    this.#ownsClient = options.client === undefined
    this.#client = options.client ?? createS3Client(options)
  }

  async put(key: string, body: BlobBody, options: PutOptions = {}): Promise<BlobInfo> {
    if (isReadable(body)) return this.upload(key, body, options)
    const target = this.#target(key, options)
    const out = await this.#call(`put ${key}`, () => putBytes(target, body))
    return { key, ...out }
  }

  async upload(key: string, source: string | Readable, options: UploadOptions = {}): Promise<BlobInfo> {
    const target = this.#target(key, options)
    const partBytes = validatePartBytes(options.partBytes ?? this.#partBytes, PART_BYTES_MIN)
    const out = await withSource(source, chunks =>
      this.#call(`upload ${key}`, () => uploadStream(target, chunks, partBytes)),
    )
    return { key, ...out }
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array | undefined> {
    const body = await this.#getBody(key, options)
    if (body === undefined || body instanceof Uint8Array) return body
    return this.#call(`get ${key}`, () => readAll(body))
  }

  async getStream(key: string, options: GetOptions = {}): Promise<Readable | undefined> {
    const body = await this.#getBody(key, options)
    if (body === undefined) return undefined
    if (body instanceof Uint8Array) return Readable.from([Buffer.from(body)])
    // Errors while the caller reads (a reset connection) surface as FlussErrors too.
    return mapStreamErrors(body, e => translateS3Error(`reading ${key}`, e, this.#bucket))
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    this.#checkOpen()
    validateBlobKey(key)
    try {
      const out = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key }),
      )
      return { key, size: out.ContentLength ?? 0, etag: bareEtag(out.ETag) }
    } catch (e) {
      if (isS3NotFound(e)) return undefined
      throw translateS3Error(`head ${key}`, e, this.#bucket)
    }
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListPage> {
    this.#checkOpen()
    validateBlobPrefix(prefix)
    const limit = validateListLimit(options.limit)
    const after = options.cursor === undefined ? undefined : decodeListCursor(options.cursor, prefix)
    // StartAfter instead of continuation tokens: works the same on S3 and on every emulator.
    const out = await this.#call(`list ${prefix}`, () =>
      this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: this.#prefix + prefix,
          MaxKeys: limit,
          StartAfter: after === undefined ? undefined : this.#prefix + after,
        }),
      ),
    )
    const items = (out.Contents ?? []).map(o => ({
      key: (o.Key as string).slice(this.#prefix.length),
      size: o.Size ?? 0,
      etag: bareEtag(o.ETag),
    }))
    const more = out.IsTruncated === true && items.length > 0
    return more ? { items, cursor: encodeListCursor(items[items.length - 1].key) } : { items }
  }

  async delete(keys: readonly string[]): Promise<void> {
    this.#checkOpen()
    keys.forEach(validateBlobKey)
    for (let i = 0; i < keys.length; i += DELETE_BATCH_MAX) {
      const batch = keys.slice(i, i + DELETE_BATCH_MAX)
      const out = await this.#call(`delete ${batch.length} blobs`, () =>
        this.#client.send(
          new DeleteObjectsCommand({
            Bucket: this.#bucket,
            Delete: { Objects: batch.map(k => ({ Key: this.#prefix + k })), Quiet: true },
          }),
        ),
      )
      const failed = (out.Errors ?? []).filter(err => err.Code !== 'NoSuchKey')
      if (failed.length > 0) {
        const first = failed[0]
        throw new FlussError(
          'STORAGE_EXCEPTION',
          `deleting ${failed.length} blobs failed, first ${first.Key}: ${first.Code} ${first.Message}`,
        )
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#ownsClient) this.#client.destroy()
  }

  /** The object body for a range: bytes for empty reads, else a stream; undefined when missing. */
  async #getBody(key: string, options: GetOptions): Promise<Uint8Array | Readable | undefined> {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.range) validateRange(options.range)
    const req = await requestedRange(options.range, () => this.head(key))
    if (req === 'missing') return undefined
    if (req === 'empty') return new Uint8Array(0)
    let out: GetObjectCommandOutput
    try {
      out = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#prefix + key, Range: req?.header }),
      )
    } catch (e) {
      if (isS3NotFound(e)) return undefined
      if (isS3InvalidRange(e)) return new Uint8Array(0)
      throw translateS3Error(`get ${key}`, e, this.#bucket)
    }
    const body = out.Body as Readable
    return req === undefined ? body : trimToRange(key, body, req, out)
  }

  #target(key: string, options: PutOptions): S3Target {
    this.#checkOpen()
    validateBlobKey(key)
    if (options.ifNoneMatch === '*' && !this.capabilities.conditionalPut) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `blob store s3://${this.#bucket}/${this.#prefix} is configured without conditional writes (its endpoint ignores If-None-Match); refusing put of ${key} with ifNoneMatch`,
      )
    }
    return {
      client: this.#client,
      bucket: this.#bucket,
      key: this.#prefix + key,
      ifNoneMatch: options.ifNoneMatch,
    }
  }

  async #call<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (e) {
      throw translateS3Error(what, e, this.#bucket)
    }
  }

  #checkOpen(): void {
    assert(!this.#closed, 'S3BlobStore used after close()')
  }
}
