import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3'
import { sdkErrorName } from '../../metastore/aws-errors.js'
import { translateS3Error } from './s3-errors.js'

/** Creates a bucket for local runs (emulators, LocalStack); an existing bucket is accepted. */
export async function createBucketIfMissing(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }))
  } catch (e) {
    const name = sdkErrorName(e)
    if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return
    throw translateS3Error(`create bucket ${bucket}`, e, bucket)
  }
}
