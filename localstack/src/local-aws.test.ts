import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { blobStoreContract } from '@sluice/core/blobstore/contract'
import { isFlussError } from '@sluice/core/errors'
import { metaStoreContract } from '@sluice/core/metastore/contract'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDynalite } from './dynalite-server.js'
import { type LocalAws, startLocalAws } from './local-aws.js'

let dataDir: string
let aws: LocalAws

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-localaws-'))
  aws = await startLocalAws({ dataDir, s3: 's3rver' })
}, 60_000)

afterAll(async () => {
  await aws?.stop()
  await rm(dataDir, { recursive: true, force: true })
}, 30_000)

metaStoreContract('DynamoMetaStore on in-process dynalite', () => aws.metaStore())

blobStoreContract('S3BlobStore on s3rver (child process)', () => aws.blobStore(), {
  conditionalPutSkipReason:
    's3rver 3.7.1 ignores If-None-Match on PUT, so create-only writes cannot be checked there',
  gaps: {
    listOrderBelowSlash: "s3rver 3.7.1 lists in folder-walk order, so 'a/b' comes before 'a-b'",
    rangeOnEmptyObject:
      's3rver 3.7.1 declares one byte for a ranged read of an empty object and aborts the response',
  },
})

describe('startLocalAws', () => {
  it('describes its endpoints as sluice.* configuration', () => {
    expect(aws.config).toEqual({
      'sluice.aws.region': 'us-east-1',
      'sluice.metastore.table': 'sluice-metadata',
      'sluice.metastore.endpoint': aws.dynamo?.endpoint,
      'sluice.blobstore.uri': 's3://sluice',
      'sluice.blobstore.endpoint': aws.s3?.endpoint,
      'sluice.blobstore.path-style-access': 'true',
    })
    expect(aws.dynamo?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(aws.conditionalPut).toBe(false)
  })

  it('keeps metadata and blobs in the data directory across restarts (fs blobs)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-localaws-restart-'))
    try {
      const first = await startLocalAws({ dataDir: dir })
      const meta = first.metaStore()
      const blobs = first.blobStore()
      await meta.put('CLUSTER', 'COORDINATOR', { coordinatorEpoch: 3 }, { version: 'absent' })
      await blobs.put('remote-log/1/_/0/00000000000000000000.log', new Uint8Array([1, 2, 3]))
      await meta.close()
      await blobs.close()
      await first.stop()
      expect(first.blobStoreUri).toBe(`file://${dir}/blobs`)

      const second = await startLocalAws({ dataDir: dir })
      const meta2 = second.metaStore()
      const blobs2 = second.blobStore()
      expect((await meta2.get('CLUSTER', 'COORDINATOR'))?.value).toEqual({ coordinatorEpoch: 3 })
      expect([...((await blobs2.get('remote-log/1/_/0/00000000000000000000.log')) ?? [])]).toEqual([1, 2, 3])
      await meta2.close()
      await blobs2.close()
      await second.stop()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 30_000)

  it('uses an external DynamoDB: creates the metadata table there, keeps blobs local', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-localaws-external-'))
    const external = await startDynalite()
    const credentials = { accessKeyId: 'external', secretAccessKey: 'external-secret' }
    try {
      const local = await startLocalAws({
        dataDir: dir,
        tableName: 'sluice-external',
        dynamo: { endpoint: external.endpoint, region: 'eu-west-1', credentials },
      })
      try {
        expect(local.config).toEqual({
          'sluice.aws.region': 'us-east-1',
          'sluice.metastore.table': 'sluice-external',
          'sluice.metastore.endpoint': external.endpoint,
          'sluice.metastore.region': 'eu-west-1',
          'sluice.blobstore.uri': `file://${dir}/blobs`,
        })
        expect(local.env).toMatchObject({
          AWS_ACCESS_KEY_ID: 'external',
          AWS_SECRET_ACCESS_KEY: 'external-secret',
        })
        expect(local.dynamo).toEqual({
          endpoint: external.endpoint,
          region: 'eu-west-1',
          tableName: 'sluice-external',
        })
        expect(existsSync(join(dir, 'dynamo'))).toBe(false)
        const meta = local.metaStore()
        await meta.put('CLUSTER', 'COORDINATOR', { coordinatorEpoch: 1 }, { version: 'absent' })
        expect((await meta.get('CLUSTER', 'COORDINATOR'))?.value).toEqual({ coordinatorEpoch: 1 })
        await meta.close()
      } finally {
        await local.stop()
      }
      // The table outlives the local endpoints: it belongs to the external DynamoDB.
      const again = await startLocalAws({
        dataDir: dir,
        tableName: 'sluice-external',
        dynamo: { endpoint: external.endpoint },
      })
      const meta = again.metaStore()
      expect((await meta.get('CLUSTER', 'COORDINATOR'))?.value).toEqual({ coordinatorEpoch: 1 })
      await meta.close()
      await again.stop()
    } finally {
      await external.stop()
      await rm(dir, { recursive: true, force: true })
    }
  }, 30_000)

  it('refuses external credentials together with s3rver, which accepts only its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-localaws-creds-'))
    try {
      const refused = await startLocalAws({
        dataDir: dir,
        s3: 's3rver',
        dynamo: { endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } },
      }).then(
        () => undefined,
        e => e,
      )
      expect(isFlussError(refused, 'INVALID_CONFIG_EXCEPTION')).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
