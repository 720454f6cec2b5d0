/** Options shared by the AWS adapters (DynamoDB metastore, S3 blob store); data only, no SDK. */
export interface AwsCredentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string
}

export interface AwsClientOptions {
  /** Omitted: the SDK's default chain (AWS_REGION, profile, instance metadata). */
  readonly region?: string
  /** A local endpoint (dynalite, s3rver, LocalStack, moto); omitted for real AWS. */
  readonly endpoint?: string
  /** Omitted: the SDK's default credential chain (task role, profile, environment). */
  readonly credentials?: AwsCredentials
  /** SDK attempts per call for throttling and 5xx, including the first; default 3. */
  readonly maxAttempts?: number
}
