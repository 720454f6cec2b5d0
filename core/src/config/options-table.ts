import { option } from './option.js'

/**
 * Table options: stored as string properties with the table, validated at CreateTable and AlterTable.
 * The set is Fluss 0.9.1's complete `table.*` list plus the 1.0 keys: the local log TTL is
 * honoured; statistics columns, standby replicas and historical partitions are refused (`notSupported`).
 */

export const LOG_FORMATS = ['ARROW', 'INDEXED', 'COMPACTED'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]
export const ARROW_COMPRESSION_TYPES = ['NONE', 'LZ4_FRAME', 'ZSTD'] as const
export type ArrowCompressionType = (typeof ARROW_COMPRESSION_TYPES)[number]
export const KV_FORMATS = ['COMPACTED', 'INDEXED'] as const
export type KvFormat = (typeof KV_FORMATS)[number]
export const MERGE_ENGINE_TYPES = ['FIRST_ROW', 'VERSIONED', 'AGGREGATION'] as const
export type MergeEngineType = (typeof MERGE_ENGINE_TYPES)[number]
export const DELETE_BEHAVIORS = ['ALLOW', 'IGNORE', 'DISABLE'] as const
export type DeleteBehavior = (typeof DELETE_BEHAVIORS)[number]
export const CHANGELOG_IMAGES = ['FULL', 'WAL'] as const
export type ChangelogImage = (typeof CHANGELOG_IMAGES)[number]
export const AUTO_PARTITION_TIME_UNITS = ['YEAR', 'QUARTER', 'MONTH', 'DAY', 'HOUR'] as const
export type AutoPartitionTimeUnit = (typeof AUTO_PARTITION_TIME_UNITS)[number]
/** Spelled as Fluss prints them (`DataLakeFormat.toString()`), matched case-insensitively. */
export const DATA_LAKE_FORMATS = ['paimon', 'lance', 'iceberg'] as const
export type DataLakeFormat = (typeof DATA_LAKE_FORMATS)[number]

/** The kv format version new tables get when the property is unset. */
export const CURRENT_KV_FORMAT_VERSION = 2

const SYSTEM_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone

export const TABLE_REPLICATION_FACTOR = option('table.replication.factor')
  .int()
  .noDefault()
  .range(1)
  .inScope('table')
  .description(
    "Number of replicas of each bucket's log. Unset means the cluster's `default.replication.factor`; it may not exceed the number of live tablet servers.",
  )

export const TABLE_LOG_FORMAT = option('table.log.format')
  .enum(LOG_FORMATS)
  .default('ARROW')
  .inScope('table')
  .description(
    'Record batch format of the log: ARROW (columnar, supports projection pushdown), INDEXED or COMPACTED (row formats).',
  )

export const TABLE_LOG_ARROW_COMPRESSION_TYPE = option('table.log.arrow.compression.type')
  .enum(ARROW_COMPRESSION_TYPES)
  .default('ZSTD')
  .inScope('table')
  .description('Per-column buffer compression of ARROW log batches; ignored for other log formats.')

export const TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL = option('table.log.arrow.compression.zstd.level')
  .int()
  .default(3)
  .range(1, 22)
  .inScope('table')
  .description('ZSTD level used when the ARROW log is compressed with ZSTD.')

export const TABLE_KV_FORMAT = option('table.kv.format')
  .enum(KV_FORMATS)
  .default('COMPACTED')
  .inScope('table')
  .description('Row format of values in the primary-key store: COMPACTED (smaller) or INDEXED.')

export const TABLE_KV_FORMAT_VERSION = option('table.kv.format-version')
  .int()
  .noDefault()
  .range(1, CURRENT_KV_FORMAT_VERSION)
  .inScope('table')
  .description(
    'Key encoding version of a primary-key table, set by the coordinator at creation (2 for new tables). Version 2 encodes the primary key with the Fluss key encoder when the bucket key differs from it, so bucket-key bytes prefix primary-key bytes and prefix lookups work; version 1 uses the lake encoder for both.',
  )

export const TABLE_AUTO_PARTITION_ENABLED = option('table.auto-partition.enabled')
  .boolean()
  .default(false)
  .inScope('table')
  .canAlter()
  .description('Create and drop time-based partitions automatically. Only valid for partitioned tables.')

export const TABLE_AUTO_PARTITION_KEY = option('table.auto-partition.key')
  .string()
  .noDefault()
  .inScope('table')
  .description(
    'The time partition column that drives auto-partitioning. Required when the table has more than one partition key.',
  )

export const TABLE_AUTO_PARTITION_TIME_UNIT = option('table.auto-partition.time-unit')
  .enum(AUTO_PARTITION_TIME_UNITS)
  .default('DAY')
  .inScope('table')
  .description(
    'Granularity of auto-created partitions; names are yyyyMMddHH (HOUR), yyyyMMdd (DAY), yyyyMM (MONTH), yyyyQ (QUARTER) or yyyy (YEAR).',
  )

export const TABLE_AUTO_PARTITION_TIME_ZONE = option('table.auto-partition.time-zone')
  .string()
  .machineDefault(SYSTEM_TIME_ZONE, "the coordinator's system time zone")
  .inScope('table')
  .description('Time zone in which auto-partition boundaries are computed.')

export const TABLE_AUTO_PARTITION_NUM_PRECREATE = option('table.auto-partition.num-precreate')
  .int()
  .default(2)
  .range(0)
  .inScope('table')
  .canAlter()
  .description(
    'Partitions to create ahead, starting at the current time unit. Must be 0 for tables with several partition keys.',
  )

export const TABLE_AUTO_PARTITION_NUM_RETENTION = option('table.auto-partition.num-retention')
  .int()
  .default(7)
  .range(0)
  .inScope('table')
  .canAlter()
  .description('Past partitions to keep; older auto-managed partitions are dropped at each check.')

export const TABLE_LOG_TTL = option('table.log.ttl')
  .duration()
  .default('7d')
  .inScope('table')
  .canAlter()
  .description(
    'How long log segments are kept (for primary-key tables: the changelog only, not the current rows). 0ms keeps them forever.',
  )

export const TABLE_LOG_LOCAL_TTL = option('table.log.local-ttl')
  .duration()
  .noDefault()
  .inScope('table')
  .canAlter()
  .description(
    'How long log segments stay on the tablet server disk once uploaded to remote storage: an uploaded segment whose newest record is older than this is removed locally even when `table.log.tiered.local-segments` would keep it; a segment not yet uploaded is never removed by it. Unset inherits `table.log.ttl`; 0ms disables the age rule (Fluss 1.0 key).',
  )

export const TABLE_LOG_TIERED_LOCAL_SEGMENTS = option('table.log.tiered.local-segments')
  .int()
  .default(2)
  .range(1)
  .inScope('table')
  .canAlter()
  .description('Newest log segments kept on local disk after they were uploaded to remote storage.')

export const TABLE_DATALAKE_ENABLED = option('table.datalake.enabled')
  .boolean()
  .default(false)
  .inScope('table')
  .canAlter()
  .description('Tier this table into the lakehouse (an Iceberg table with the same database and name).')

export const TABLE_DATALAKE_FORMAT = option('table.datalake.format')
  .enum(DATA_LAKE_FORMATS)
  .noDefault()
  .inScope('table')
  .description(
    "Lake format of the table; decides key encoding and bucketing so that union reads line up. Unset takes the cluster's `datalake.format`. May be set before the lake is enabled.",
  )

export const TABLE_DATALAKE_FRESHNESS = option('table.datalake.freshness')
  .duration()
  .default('3min')
  .inScope('table')
  .canAlter()
  .description(
    'Target maximum lag of the lake table behind the log; drives how often tiering rounds run for the table.',
  )

export const TABLE_DATALAKE_AUTO_COMPACTION = option('table.datalake.auto-compaction')
  .boolean()
  .default(false)
  .inScope('table')
  .canAlter()
  .notSupported('tiering rounds do not compact lake data files')
  .description('Compact lake data files as part of tiering rounds.')

export const TABLE_DATALAKE_AUTO_EXPIRE_SNAPSHOT = option('table.datalake.auto-expire-snapshot')
  .boolean()
  .default(false)
  .inScope('table')
  .notSupported('tiering rounds do not expire lake snapshots')
  .description('Expire old lake snapshots when a tiering round commits.')

export const TABLE_DATALAKE_HISTORICAL_PARTITION_ENABLED = option(
  'table.datalake.historical-partition.enabled',
)
  .boolean()
  .default(false)
  .inScope('table')
  .canAlter()
  .notSupported('lookups are not served from the lake for partitions dropped by retention')
  .description(
    'Serve lookups on partitions already dropped by retention from the lake (auto-partitioned primary-key tables with one partition key; Fluss 1.0 key).',
  )

export const TABLE_MERGE_ENGINE = option('table.merge-engine')
  .enum(MERGE_ENGINE_TYPES)
  .noDefault()
  .inScope('table')
  .description(
    'How rows with the same primary key merge: unset replaces the row; FIRST_ROW keeps the first; VERSIONED keeps the highest version column; AGGREGATION applies per-column aggregate functions. Primary-key tables only.',
  )

export const TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN = option('table.merge-engine.versioned.ver-column')
  .string()
  .noDefault()
  .inScope('table')
  .description(
    'Version column of the VERSIONED merge engine (INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ); required with that engine.',
  )

export const TABLE_DELETE_BEHAVIOR = option('table.delete.behavior')
  .enum(DELETE_BEHAVIORS)
  .default('ALLOW')
  .inScope('table')
  .description(
    'What a delete does on a primary-key table: ALLOW removes the row, IGNORE drops the request silently, DISABLE rejects it. Tables with a merge engine default to IGNORE; FIRST_ROW and VERSIONED do not accept ALLOW.',
  )

export const TABLE_AUTO_INCREMENT_CACHE_SIZE = option('table.auto-increment.cache-size')
  .long()
  .default(100_000)
  .range(1)
  .inScope('table')
  .description(
    'Auto-increment ids reserved per fetch from the shared counter. Larger values mean fewer counter updates but bigger id gaps after restarts.',
  )

export const TABLE_CHANGELOG_IMAGE = option('table.changelog.image')
  .enum(CHANGELOG_IMAGES)
  .default('FULL')
  .inScope('table')
  .description(
    'Changelog of a primary-key table: FULL emits update-before and update-after rows; WAL emits no update-before rows (cheaper, loses the previous values). Not allowed with the AGGREGATION merge engine.',
  )

export const TABLE_STATISTICS_COLUMNS = option('table.statistics.columns')
  .string()
  .noDefault()
  .inScope('table')
  .canAlter()
  .notSupported('log batches carry no per-column statistics and filters are not pushed down to batches')
  .description(
    "Columns with per-batch min/max/null-count statistics for filter pushdown: '*' for all supported columns or a comma-separated list. Unset collects none (Fluss 1.0 key).",
  )

export const TABLE_KV_STANDBY_REPLICA_ENABLED = option('table.kv.standby-replica.enabled')
  .boolean()
  .noDefault()
  .inScope('table')
  .canAlter()
  .notSupported(
    'followers keep no standby KV store; a new leader restores from the latest KV snapshot',
    v => v,
    "'false'",
  )
  .description(
    'Keep a warm KV store on follower replicas so a new leader starts without downloading a snapshot (Fluss 1.0 key; Fluss 1.0 turns it on for new primary-key tables).',
  )

export const TABLE_OPTIONS = [
  TABLE_REPLICATION_FACTOR,
  TABLE_LOG_FORMAT,
  TABLE_LOG_ARROW_COMPRESSION_TYPE,
  TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL,
  TABLE_KV_FORMAT,
  TABLE_KV_FORMAT_VERSION,
  TABLE_AUTO_PARTITION_ENABLED,
  TABLE_AUTO_PARTITION_KEY,
  TABLE_AUTO_PARTITION_TIME_UNIT,
  TABLE_AUTO_PARTITION_TIME_ZONE,
  TABLE_AUTO_PARTITION_NUM_PRECREATE,
  TABLE_AUTO_PARTITION_NUM_RETENTION,
  TABLE_LOG_TTL,
  TABLE_LOG_LOCAL_TTL,
  TABLE_LOG_TIERED_LOCAL_SEGMENTS,
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FORMAT,
  TABLE_DATALAKE_FRESHNESS,
  TABLE_DATALAKE_AUTO_COMPACTION,
  TABLE_DATALAKE_AUTO_EXPIRE_SNAPSHOT,
  TABLE_DATALAKE_HISTORICAL_PARTITION_ENABLED,
  TABLE_MERGE_ENGINE,
  TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN,
  TABLE_DELETE_BEHAVIOR,
  TABLE_AUTO_INCREMENT_CACHE_SIZE,
  TABLE_CHANGELOG_IMAGE,
  TABLE_STATISTICS_COLUMNS,
  TABLE_KV_STANDBY_REPLICA_ENABLED,
] as const
