import { option } from './option.js'

/** Sluice's own options: AWS wiring (metadata table, blob store), liveness leases, local mode. */

export const SLUICE_AWS_REGION = option('sluice.aws.region')
  .string()
  .noDefault()
  .inScope('server')
  .description("AWS region of DynamoDB and S3. Unset uses the AWS SDK's own lookup (environment, profile).")

export const SLUICE_METASTORE_ENDPOINT = option('sluice.metastore.endpoint')
  .string()
  .noDefault()
  .inScope('server')
  .description(
    "DynamoDB endpoint URL, e.g. 'http://127.0.0.1:4567' for a local emulator. Unset uses the regional AWS endpoint.",
  )

export const SLUICE_METASTORE_REGION = option('sluice.metastore.region')
  .string()
  .noDefault()
  .inScope('server')
  .description('Region of the metadata table when it differs from `sluice.aws.region`.')

export const SLUICE_METASTORE_TABLE = option('sluice.metastore.table')
  .string()
  .default('sluice-metadata')
  .inScope('server')
  .description('Name of the DynamoDB table holding cluster metadata.')

export const SLUICE_BLOBSTORE_URI = option('sluice.blobstore.uri')
  .string()
  .matching(
    /^(s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/\S*)?|file:\/\/\/\S*)$/,
    "'s3://bucket/prefix' or 'file:///absolute/path'",
  )
  .noDefault()
  .inScope('server')
  .description(
    "Where remote log segments, KV snapshots and lake tables live: 's3://bucket/prefix' or 'file:///absolute/path'.",
  )

export const SLUICE_BLOBSTORE_ENDPOINT = option('sluice.blobstore.endpoint')
  .string()
  .noDefault()
  .inScope('server')
  .description('S3 endpoint URL for S3-compatible emulators. Unset uses the regional AWS endpoint.')

export const SLUICE_BLOBSTORE_PATH_STYLE_ACCESS = option('sluice.blobstore.path-style-access')
  .boolean()
  .default(false)
  .inScope('server')
  .description(
    "Address S3 buckets by path ('endpoint/bucket/key') instead of by host name; emulators need it.",
  )

export const SLUICE_COORDINATOR_LEASE_DURATION = option('sluice.coordinator.lease-duration')
  .duration()
  .default('15s')
  .range('1s', '10min')
  .inScope('server')
  .description(
    'Lifetime of the active coordinator lease in the metadata table; a standby takes over after it lapses.',
  )

export const SLUICE_COORDINATOR_LEASE_RENEW_INTERVAL = option('sluice.coordinator.lease-renew-interval')
  .duration()
  .default('5s')
  .range('100ms', '5min')
  .inScope('server')
  .description('How often the active coordinator renews its lease; keep it well below the lease duration.')

export const SLUICE_TABLET_SERVER_LEASE_DURATION = option('sluice.tablet-server.lease-duration')
  .duration()
  .default('30s')
  .range('1s', '10min')
  .inScope('server')
  .description(
    'Lifetime of a tablet server membership lease; the coordinator treats a lapsed lease as a dead server.',
  )

export const SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL = option('sluice.tablet-server.heartbeat-interval')
  .duration()
  .default('10s')
  .range('100ms', '5min')
  .inScope('server')
  .description('How often a tablet server renews its lease; keep it well below the lease duration.')

export const SLUICE_LOCAL_DATA_DIR = option('sluice.local.data-dir')
  .string()
  .default('.sluice')
  .inScope('local')
  .description(
    'Root directory of the local cluster: server data, emulated DynamoDB and S3, lake tables. The SLUICE_DATA_DIR environment variable overrides it.',
  )

export const SLUICE_OPTIONS = [
  SLUICE_AWS_REGION,
  SLUICE_METASTORE_ENDPOINT,
  SLUICE_METASTORE_REGION,
  SLUICE_METASTORE_TABLE,
  SLUICE_BLOBSTORE_URI,
  SLUICE_BLOBSTORE_ENDPOINT,
  SLUICE_BLOBSTORE_PATH_STYLE_ACCESS,
  SLUICE_COORDINATOR_LEASE_DURATION,
  SLUICE_COORDINATOR_LEASE_RENEW_INTERVAL,
  SLUICE_TABLET_SERVER_LEASE_DURATION,
  SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL,
  SLUICE_LOCAL_DATA_DIR,
] as const
