import { fileURLToPath } from 'node:url'
import { FlussError } from '../errors/index.js'
import type { BlobStore } from './blob-store.js'
import { FsBlobStore } from './fs-blob-store.js'
import { MemoryBlobStore } from './memory-blob-store.js'
import type { S3BlobStoreOptions } from './s3/s3-blob-store.js'

export type BlobStoreOptions = Omit<S3BlobStoreOptions, 'bucket' | 'prefix'>

/**
 * Builds the BlobStore a URI names (the value of `sluice.blobstore.uri`):
 * - `s3://bucket/prefix` → S3BlobStore (options carry region, endpoint, credentials, path style)
 * - `file:///absolute/path` → FsBlobStore rooted there
 * - `memory://` → a new, empty MemoryBlobStore (tests)
 * Async because the S3 adapter (and the AWS SDK) is loaded only for s3:// URIs.
 */
export async function createBlobStore(uri: string, options: BlobStoreOptions = {}): Promise<BlobStore> {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `blob store URI '${uri}' is not a URI; expected s3://bucket/prefix, file:///path or memory://`,
    )
  }
  switch (url.protocol) {
    case 's3:': {
      if (url.hostname === '')
        throw new FlussError('INVALID_CONFIG_EXCEPTION', `blob store URI '${uri}' names no bucket`)
      const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '')
      const { S3BlobStore } = await import('./s3/s3-blob-store.js')
      return new S3BlobStore({ ...options, bucket: url.hostname, prefix })
    }
    case 'file:':
      if (url.hostname !== '' || !uri.startsWith('file:///')) {
        throw new FlussError(
          'INVALID_CONFIG_EXCEPTION',
          `blob store URI '${uri}' must be file:///absolute/path (three slashes)`,
        )
      }
      return new FsBlobStore(fileURLToPath(url))
    case 'memory:':
      return new MemoryBlobStore()
    default:
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `blob store URI '${uri}' has unsupported scheme '${url.protocol}'; expected s3:, file: or memory:`,
      )
  }
}
