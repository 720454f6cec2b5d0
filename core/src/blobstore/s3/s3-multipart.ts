import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { FlussError } from '../../errors/index.js'
import { partsOf } from '../body.js'

/** S3 allows at most 10,000 parts per object. */
export const PARTS_MAX = 10_000

export interface S3Target {
  readonly client: S3Client
  readonly bucket: string
  readonly key: string
  readonly ifNoneMatch?: '*'
}

export interface Uploaded {
  readonly size: number
  readonly etag: string
}

/** Strips the quotes S3 puts around ETags. */
export function bareEtag(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '')
}

/** One PutObject of bytes held in memory (always with a known length: no streaming checksums). */
export async function putBytes(t: S3Target, body: Uint8Array): Promise<Uploaded> {
  const out = await t.client.send(
    new PutObjectCommand({
      Bucket: t.bucket,
      Key: t.key,
      Body: body,
      ContentLength: body.length,
      IfNoneMatch: t.ifNoneMatch,
    }),
  )
  return { size: body.length, etag: bareEtag(out.ETag) }
}

/**
 * Uploads a stream: a single PutObject when it fits in one part, else a multipart upload with one
 * part in memory at a time. The conditional header goes on the completing request, so a losing
 * writer's parts are never visible; a failed upload is aborted.
 */
export async function uploadStream(
  t: S3Target,
  stream: AsyncIterable<unknown>,
  partBytes: number,
): Promise<Uploaded> {
  const parts = partsOf(stream, partBytes)[Symbol.asyncIterator]()
  const first = await parts.next()
  if (first.done) return putBytes(t, new Uint8Array(0))
  const second = await parts.next()
  if (second.done) return putBytes(t, first.value)
  const created = await t.client.send(new CreateMultipartUploadCommand({ Bucket: t.bucket, Key: t.key }))
  const uploadId = created.UploadId as string
  try {
    const done: CompletedPart[] = []
    let size = 0
    const uploadPart = async (body: Buffer) => {
      const partNumber = done.length + 1
      if (partNumber > PARTS_MAX)
        throw new FlussError(
          'INVALID_REQUEST',
          `upload of ${t.key} needs more than ${PARTS_MAX} parts of ${partBytes} bytes`,
        )
      const out = await t.client.send(
        new UploadPartCommand({
          Bucket: t.bucket,
          Key: t.key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentLength: body.length,
        }),
      )
      done.push({ ETag: out.ETag, PartNumber: partNumber })
      size += body.length
    }
    await uploadPart(first.value)
    await uploadPart(second.value)
    for (let next = await parts.next(); !next.done; next = await parts.next()) await uploadPart(next.value)
    const out = await t.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: t.bucket,
        Key: t.key,
        UploadId: uploadId,
        MultipartUpload: { Parts: done },
        IfNoneMatch: t.ifNoneMatch,
      }),
    )
    return { size, etag: bareEtag(out.ETag) }
  } catch (e) {
    await t.client
      .send(new AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId }))
      .catch(() => undefined)
    throw e
  }
}
