import { createBucketIfMissing, createS3Client } from '@sluice/core/blobstore/s3'
import { createDynamoClient, createMetadataTable } from '@sluice/core/metastore/dynamo'

export interface AwsEndpoints {
  readonly region: string
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string }
  /** DynamoDB endpoint; omitted: skip the table. */
  readonly dynamoEndpoint?: string
  /** S3 endpoint; omitted: skip the bucket. */
  readonly s3Endpoint?: string
  readonly tableName: string
  readonly bucket: string
}

/**
 * Creates the metadata table (from METADATA_TABLE) and the bucket on local endpoints: the
 * in-process emulators, LocalStack or moto. Idempotent. Deployed resources come from the CDK.
 */
export async function bootstrapAws(e: AwsEndpoints): Promise<void> {
  if (e.dynamoEndpoint !== undefined) {
    const client = createDynamoClient({
      region: e.region,
      endpoint: e.dynamoEndpoint,
      credentials: e.credentials,
    })
    try {
      await createMetadataTable(client, { tableName: e.tableName })
    } finally {
      client.destroy()
    }
  }
  if (e.s3Endpoint !== undefined) {
    const client = createS3Client({ region: e.region, endpoint: e.s3Endpoint, credentials: e.credentials })
    try {
      await createBucketIfMissing(client, e.bucket)
    } finally {
      client.destroy()
    }
  }
}
