import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { createBlobStore } from './create-blob-store.js'
import { FsBlobStore } from './fs-blob-store.js'
import { MemoryBlobStore } from './memory-blob-store.js'
import { S3BlobStore } from './s3/s3-blob-store.js'

describe('createBlobStore', () => {
  it('opens the store a URI names', async () => {
    const fs = await createBlobStore('file:///tmp/sluice-blobs')
    expect(fs).toBeInstanceOf(FsBlobStore)
    expect((fs as FsBlobStore).root).toBe('/tmp/sluice-blobs')
    expect(await createBlobStore('memory://')).toBeInstanceOf(MemoryBlobStore)
    const s3 = await createBlobStore('s3://my-bucket/remote/data/', { region: 'us-east-1' })
    expect(s3).toBeInstanceOf(S3BlobStore)
    await s3.close()
  })

  it('refuses URIs it cannot open', async () => {
    for (const uri of ['not a uri', 'gs://bucket/x', 'file://host/path', 's3:///nobucket', 'file:relative']) {
      const e = await createBlobStore(uri).then(
        () => undefined,
        err => err,
      )
      expect(e, uri).toBeInstanceOf(FlussError)
      expect((e as FlussError).errorName).toBe('INVALID_CONFIG_EXCEPTION')
    }
  })
})
