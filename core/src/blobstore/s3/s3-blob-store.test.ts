import { Readable } from 'node:stream'
import type { S3Client } from '@aws-sdk/client-s3'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { PART_BYTES_MIN } from '../blob-store.js'
import { S3BlobStore } from './s3-blob-store.js'

type Sent = { name: string; input: Record<string, unknown> }

function fakeS3(answer: (name: string, input: Record<string, unknown>) => unknown) {
  const sent: Sent[] = []
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input })
      return answer(command.constructor.name, command.input)
    },
    destroy: () => undefined,
  }
  return { client: client as unknown as S3Client, sent }
}

const sdkError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } })

async function failure(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected a failure')
    },
    e => e as FlussError,
  )
}

describe('S3BlobStore', () => {
  it('translates S3 failures into typed errors', async () => {
    const cases: Array<[Error, string]> = [
      [sdkError('PreconditionFailed', 412), 'LAKE_COMMIT_CONFLICT'],
      [sdkError('ConditionalRequestConflict', 409), 'LAKE_COMMIT_CONFLICT'],
      [sdkError('SlowDown', 503), 'STORAGE_EXCEPTION'],
      [sdkError('InternalError', 500), 'STORAGE_EXCEPTION'],
      [sdkError('NoSuchBucket', 404), 'INVALID_CONFIG_EXCEPTION'],
      [sdkError('AccessDenied', 403), 'UNKNOWN_SERVER_ERROR'],
    ]
    for (const [thrown, name] of cases) {
      const { client } = fakeS3(() => {
        throw thrown
      })
      const e = await failure(
        new S3BlobStore({ bucket: 'b', client }).put('k', new Uint8Array([1]), { ifNoneMatch: '*' }),
      )
      expect(e).toBeInstanceOf(FlussError)
      expect(e.errorName).toBe(name)
    }
  })

  it('keeps keys under the prefix and strips it when listing', async () => {
    const { client, sent } = fakeS3(name =>
      name === 'ListObjectsV2Command'
        ? { Contents: [{ Key: 'root/dir/x/a', Size: 1, ETag: '"e1"' }], IsTruncated: true }
        : { ETag: '"abc"' },
    )
    const store = new S3BlobStore({ bucket: 'b', prefix: 'root/dir', client })
    expect(await store.put('x/a', new Uint8Array([1]))).toEqual({ key: 'x/a', size: 1, etag: 'abc' })
    expect(sent[0].input).toMatchObject({ Bucket: 'b', Key: 'root/dir/x/a', ContentLength: 1 })
    const page = await store.list('x/', { limit: 1 })
    expect(page.items).toEqual([{ key: 'x/a', size: 1, etag: 'e1' }])
    await store.list('x/', { limit: 1, cursor: page.cursor })
    expect(sent[2].input).toMatchObject({ Prefix: 'root/dir/x/', MaxKeys: 1, StartAfter: 'root/dir/x/a' })
  })

  it('cuts the body down when the server sends more than the range asked for', async () => {
    const whole = Buffer.from('hello world')
    const answers: Record<string, unknown>[] = [
      { Body: Readable.from([whole]), ContentLength: 11 }, // Range ignored: a plain 200
      { Body: Readable.from([whole]), ContentLength: 11, ContentRange: 'bytes 0-10/11' }, // bytes=0-0 answered in full
    ]
    const { client } = fakeS3(() => answers.shift())
    const store = new S3BlobStore({ bucket: 'b', client })
    expect(
      Buffer.from((await store.get('k', { range: { start: 6, end: 9 } })) as Uint8Array).toString(),
    ).toBe('wor')
    expect(
      Buffer.from((await store.get('k', { range: { start: 0, end: 1 } })) as Uint8Array).toString(),
    ).toBe('h')
  })

  it('refuses a body that starts after the requested offset', async () => {
    const { client } = fakeS3(() => ({
      Body: Readable.from([Buffer.from('world')]),
      ContentRange: 'bytes 6-10/11',
    }))
    const e = await failure(
      new S3BlobStore({ bucket: 'b', client }).get('k', { range: { start: 2, end: 4 } }),
    )
    expect(e.errorName).toBe('STORAGE_EXCEPTION')
  })

  it('aborts a multipart upload that fails midway', async () => {
    const { client, sent } = fakeS3(name => {
      if (name === 'CreateMultipartUploadCommand') return { UploadId: 'u1' }
      if (name === 'UploadPartCommand' && sent.filter(s => s.name === name).length === 2)
        throw sdkError('InternalError', 500)
      return { ETag: '"p"' }
    })
    const data = Buffer.alloc(3 * PART_BYTES_MIN, 1)
    const e = await failure(
      new S3BlobStore({ bucket: 'b', client }).upload('big', Readable.from([data]), {
        partBytes: PART_BYTES_MIN,
      }),
    )
    expect(e.errorName).toBe('STORAGE_EXCEPTION')
    expect(sent.map(s => s.name)).toEqual([
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'AbortMultipartUploadCommand',
    ])
    expect(sent[3].input).toMatchObject({ UploadId: 'u1', Key: 'big' })
  })

  it('refuses what it cannot do honestly', async () => {
    const { client, sent } = fakeS3(() => ({}))
    const store = new S3BlobStore({ bucket: 'b', client, conditionalPut: false })
    expect((await failure(store.put('k', new Uint8Array(1), { ifNoneMatch: '*' }))).errorName).toBe(
      'INVALID_CONFIG_EXCEPTION',
    )
    expect((await failure(store.upload('k', Readable.from([]), { partBytes: 1024 }))).errorName).toBe(
      'INVALID_REQUEST',
    )
    expect(sent).toEqual([])
    expect(() => new S3BlobStore({ bucket: 'b', client, prefix: '/x' })).toThrow(FlussError)
  })
})
