import { BLOB_KEY_ROOTS } from '@sluice/core/blobstore'
import { Duration, RemovalPolicy } from 'aws-cdk-lib'
import * as s3 from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'

export interface DataBucketProps {
  /** Keep the bucket and its objects when the stack is deleted; otherwise empty and delete it. */
  readonly retain: boolean
  readonly noncurrentVersionExpirationDays: number
  readonly abortIncompleteUploadDays: number
}

/** Pinned logical id of the bucket that holds remote log segments, KV snapshots and the lake. */
export const DATA_BUCKET_LOGICAL_ID = 'DataBucket'

/** Key prefixes of the bucket, from core's key registry; grants are scoped to them. */
export const DATA_PREFIXES = {
  remoteLog: `${BLOB_KEY_ROOTS.remoteLog}/`,
  kvSnapshots: `${BLOB_KEY_ROOTS.kvSnapshots}/`,
  lake: `${BLOB_KEY_ROOTS.lake}/`,
} as const

/**
 * The S3 bucket for everything cold: sealed log segments, KV snapshots and the Iceberg tables.
 * Private, encrypted, TLS-only and versioned, so an overwrite or delete by a buggy writer can be undone
 * for `noncurrentVersionExpirationDays`.
 */
export class DataBucket extends Construct {
  readonly bucket: s3.Bucket

  constructor(scope: Construct, id: string, props: DataBucketProps) {
    super(scope, id)
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: true,
      lifecycleRules: [
        {
          id: 'abort-incomplete-multipart-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(props.abortIncompleteUploadDays),
        },
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: Duration.days(props.noncurrentVersionExpirationDays),
          expiredObjectDeleteMarker: true,
        },
      ],
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      autoDeleteObjects: !props.retain,
    })
    const cfnBucket = this.bucket.node.defaultChild as s3.CfnBucket
    cfnBucket.overrideLogicalId(DATA_BUCKET_LOGICAL_ID)
  }
}
