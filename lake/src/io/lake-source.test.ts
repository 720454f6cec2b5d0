import { MemoryBlobStore } from '@sluice/core/blobstore'
import { describe, expect, it } from 'vitest'
import {
  blobStoreLakeSource,
  hintedMetadataLocation,
  lakeTableLocation,
  readLakeFile,
} from './lake-source.js'

describe('lake sources', () => {
  it('serve locations under the root, find the hinted metadata and refuse bad hints', async () => {
    const store = new MemoryBlobStore()
    const source = blobStoreLakeSource(store, 's3://bucket/prefix/')
    const location = lakeTableLocation(source, { databaseName: 'db', tableName: 't' })
    expect(location).toBe('s3://bucket/prefix/lake/db/t')
    expect(await hintedMetadataLocation(source, location)).toBeUndefined()
    await store.put('lake/db/t/metadata/version-hint.text', Buffer.from('3\n'))
    expect(await hintedMetadataLocation(source, location)).toBe(`${location}/metadata/v3.metadata.json`)
    await expect(readLakeFile(source, `${location}/metadata/v3.metadata.json`)).rejects.toMatchObject({
      errorName: 'LAKE_SNAPSHOT_NOT_EXIST',
    })
    await store.put('lake/db/t/metadata/version-hint.text', Buffer.from('x'))
    await expect(hintedMetadataLocation(source, location)).rejects.toMatchObject({
      errorName: 'CORRUPT_MESSAGE',
    })
    await expect(source.read('s3://other/lake/x')).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' })
  })
})
