import { option } from './option.js'
import { DATA_LAKE_FORMATS } from './options-table.js'

/** Cluster-wide options, read by the coordinator (table defaults, limits, lake, security). */

export const DEFAULT_BUCKET_NUMBER = option('default.bucket.number')
  .int()
  .default(1)
  .range(1)
  .inScope('cluster')
  .description('Bucket count of a new table that does not name one.')

export const DEFAULT_REPLICATION_FACTOR = option('default.replication.factor')
  .int()
  .default(1)
  .range(1)
  .inScope('cluster')
  .description('Replication factor of a new table that does not set `table.replication.factor`.')

export const MAX_BUCKET_NUM = option('max.bucket.num')
  .int()
  .default(128_000)
  .range(1)
  .inScope('cluster')
  .description(
    'Most buckets one table may have (for a partitioned table: per partition); larger requests fail with BUCKET_MAX_NUM_EXCEPTION.',
  )

export const MAX_PARTITION_NUM = option('max.partition.num')
  .int()
  .default(1000)
  .range(1)
  .inScope('cluster')
  .description('Most partitions one partitioned table may have; more fail with PARTITION_MAX_NUM_EXCEPTION.')

export const ALLOW_CREATE_LOG_TABLES = option('allow.create.log.tables')
  .boolean()
  .default(true)
  .inScope('cluster')
  .description('Whether tables without a primary key may be created.')

export const ALLOW_CREATE_KV_TABLES = option('allow.create.kv.tables')
  .boolean()
  .default(true)
  .inScope('cluster')
  .description('Whether primary-key tables may be created.')

export const AUTO_PARTITION_CHECK_INTERVAL = option('auto-partition.check.interval')
  .duration()
  .default('10min')
  .range(1)
  .inScope('cluster')
  .description('How often the coordinator creates and drops partitions of auto-partitioned tables.')

export const DATALAKE_FORMAT = option('datalake.format')
  .enum(DATA_LAKE_FORMATS)
  .noDefault()
  .inScope('cluster')
  .description(
    "The cluster's lakehouse format. Options under `datalake.<format>.` are passed to that format's catalog. Unset means no lakehouse tiering.",
  )

export const LAKE_TIERING_AUTO_EXPIRE_SNAPSHOT = option('lake.tiering.auto-expire-snapshot')
  .boolean()
  .default(false)
  .inScope('cluster')
  .notSupported('tiering rounds do not expire lake snapshots')
  .description('Expire old lake snapshots on every tiering commit, whatever the table sets.')

export const REMOTE_DATA_DIR = option('remote.data.dir')
  .string()
  .noDefault()
  .inScope('cluster')
  .description(
    'Root of remote storage for tiered log segments and KV snapshots. Unset means `sluice.blobstore.uri`.',
  )

export const COORDINATOR_PRODUCER_OFFSETS_TTL = option('coordinator.producer-offsets.ttl')
  .duration()
  .default('24h')
  .range(1)
  .inScope('cluster')
  .notSupported('the coordinator does not serve the producer offsets APIs')
  .description('Registered producer offsets older than this are removed by the coordinator.')

export const COORDINATOR_PRODUCER_OFFSETS_CLEANUP_INTERVAL = option(
  'coordinator.producer-offsets.cleanup-interval',
)
  .duration()
  .default('1h')
  .range(1)
  .inScope('cluster')
  .notSupported('the coordinator does not serve the producer offsets APIs')
  .description('How often expired producer offsets (and orphaned remote files) are cleaned up.')

export const AUTHORIZER_ENABLED = option('authorizer.enabled')
  .boolean()
  .default(false)
  .inScope('cluster')
  .description(
    'Enforce ACLs on every request (CREATE/LIST/DROP_ACLS manage them); when false every principal may do everything.',
  )

export const AUTHORIZER_TYPE = option('authorizer.type')
  .enum(['default'] as const)
  .default('default')
  .inScope('cluster')
  .notSupported('the metadata-store ACL authorizer is the only one')
  .description('Which authorizer checks ACLs; `default` (ACLs in the metadata store) is the only one.')

export const SUPER_USERS = option('super.users')
  .string()
  .noDefault()
  .inScope('cluster')
  .description("Principals that bypass ACL checks, separated by semicolons, e.g. 'User:admin;User:ops'.")

export const ACL_NOTIFICATION_EXPIRATION_TIME = option('acl.notification.expiration-time')
  .duration()
  .default('15min')
  .range(1)
  .inScope('cluster')
  .description(
    'The staleness bound of the ACL cache of every server: ACLs are reloaded from the metadata store at least this often, and a server that could not reload them for this long refuses every principal but super users (changes normally arrive within `sluice.acl.refresh-interval`).',
  )

export const CLUSTER_OPTIONS = [
  DEFAULT_BUCKET_NUMBER,
  DEFAULT_REPLICATION_FACTOR,
  MAX_BUCKET_NUM,
  MAX_PARTITION_NUM,
  ALLOW_CREATE_LOG_TABLES,
  ALLOW_CREATE_KV_TABLES,
  AUTO_PARTITION_CHECK_INTERVAL,
  DATALAKE_FORMAT,
  LAKE_TIERING_AUTO_EXPIRE_SNAPSHOT,
  REMOTE_DATA_DIR,
  COORDINATOR_PRODUCER_OFFSETS_TTL,
  COORDINATOR_PRODUCER_OFFSETS_CLEANUP_INTERVAL,
  AUTHORIZER_ENABLED,
  AUTHORIZER_TYPE,
  SUPER_USERS,
  ACL_NOTIFICATION_EXPIRATION_TIME,
] as const
