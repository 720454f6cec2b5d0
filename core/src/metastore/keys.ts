import { FlussError } from '../errors/index.js'

/**
 * The one place that knows metadata item keys. Numeric parts are zero-padded so that sort-key
 * order (UTF-8 bytes) equals numeric order: 20 digits for 64-bit ids (tables, partitions,
 * snapshots), 10 digits for 32-bit ones (servers, buckets, schemas).
 *
 * | pk             | sk                                  | holds                                        |
 * |----------------|-------------------------------------|----------------------------------------------|
 * | CLUSTER        | COORDINATOR                         | active coordinator, coordinatorEpoch, lease  |
 * | CLUSTER        | SERVER#<id>                         | tablet server lease: endpoints, rack, expiry |
 * | CLUSTER        | COUNTER#<name>                      | id allocators (allocate-id.ts)               |
 * | CATALOG        | DB#<db>                             | database descriptor                          |
 * | DB#<db>        | TABLE#<name>                        | table descriptor (table id, schema id)       |
 * | TABLE#<id>     | TABLE                               | table path by id                             |
 * | TABLE#<id>     | SCHEMA#<n>                          | schema versions                              |
 * | TABLE#<id>     | PARTITION#<name>                    | partitions                                   |
 * | TABLE#<id>     | BUCKET#<partition>#<bucket>         | LeaderAndIsr, leaderEpoch, bucketEpoch, ...  |
 * | TABLE#<id>     | KVSNAP#<partition>#<bucket>#<snap>  | KV snapshot pointers                         |
 * | TABLE#<id>     | KVSNAPHEAD#<partition>#<bucket>     | committed KV snapshot ids, leaderEpoch       |
 * | TABLE#<id>     | REMOTELOG#<partition>#<bucket>      | remote log manifest pointer                  |
 * | TABLE#<id>     | LAKE                                | tiering progress                             |
 * | TABLE#<id>     | AUTOINC#<columnId>                  | auto-increment counter (allocate-id.ts)      |
 * | LAKE_CATALOG#<db> | TABLE#<name>                     | local lake catalog: Iceberg metadata pointer |
 * | ACL            | BINDING#<binding>                   | one ACL binding (resource + entry)           |
 * | ACL            | VERSION                             | change counter of the ACLs (cache refresh)   |
 *
 * `<binding>` is the binding's resource type, resource name, principal type, principal name, host,
 * operation and permission, each URI-encoded, joined by `#`.
 *
 * `<partition>` is the partition id, or `_` for a non-partitioned table. Server leases and
 * databases share one partition each, so they can be listed with a query (no scans).
 */
export interface ItemKey {
  readonly pk: string
  readonly sk: string
}

/** A bucket of a table (Fluss's TableBucket); partitionId is null/undefined when not partitioned. */
export interface BucketRef {
  readonly tableId: number
  readonly partitionId?: number | null
  readonly bucket: number
}

export const ID_DIGITS = 20
export const INT_DIGITS = 10
const INT32_MAX = 2 ** 31 - 1
const NO_PARTITION = '_'

export const CLUSTER_PK = 'CLUSTER'
export const CATALOG_PK = 'CATALOG'
export const SERVER_SK_PREFIX = 'SERVER#'
export const COUNTER_SK_PREFIX = 'COUNTER#'
export const DATABASE_SK_PREFIX = 'DB#'
export const TABLE_SK_PREFIX = 'TABLE#'
export const SCHEMA_SK_PREFIX = 'SCHEMA#'
export const PARTITION_SK_PREFIX = 'PARTITION#'
export const BUCKET_SK_PREFIX = 'BUCKET#'
export const KV_SNAPSHOT_SK_PREFIX = 'KVSNAP#'
export const KV_SNAPSHOT_HEAD_SK_PREFIX = 'KVSNAPHEAD#'
export const REMOTE_LOG_SK_PREFIX = 'REMOTELOG#'
export const AUTO_INCREMENT_SK_PREFIX = 'AUTOINC#'

/** Counters allocated with allocateId. */
export const COUNTERS = { tableId: 'table-id', partitionId: 'partition-id', writerId: 'writer-id' } as const
export type CounterName = (typeof COUNTERS)[keyof typeof COUNTERS]

function invalid(message: string): FlussError {
  return new FlussError('INVALID_REQUEST', message)
}

/** Zero-pads a non-negative integer to a fixed width. */
export function padNumber(n: number, digits: number, what: string): string {
  const max = digits >= 16 ? Number.MAX_SAFE_INTEGER : Math.min(INT32_MAX, 10 ** digits - 1)
  if (!Number.isSafeInteger(n) || n < 0 || n > max)
    throw invalid(`${what} must be an integer in [0, ${max}], got ${n}`)
  return String(n).padStart(digits, '0')
}

export function parsePadded(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw invalid(`${what} '${text}' is not a padded number`)
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw invalid(`${what} '${text}' is out of range`)
  return n
}

function name(n: string, what: string): string {
  if (typeof n !== 'string' || n.length === 0 || n.includes('#')) {
    throw invalid(`${what} must be a non-empty string without '#', got ${JSON.stringify(n)}`)
  }
  return n
}

const tablePk = (tableId: number) => `TABLE#${padNumber(tableId, ID_DIGITS, 'table id')}`
const partitionPart = (p: number | null | undefined) =>
  p == null ? NO_PARTITION : padNumber(p, ID_DIGITS, 'partition id')
const bucketPart = (b: BucketRef) =>
  `${partitionPart(b.partitionId)}#${padNumber(b.bucket, INT_DIGITS, 'bucket')}`

export const coordinatorKey = (): ItemKey => ({ pk: CLUSTER_PK, sk: 'COORDINATOR' })
export const serverKey = (serverId: number): ItemKey => ({
  pk: CLUSTER_PK,
  sk: `${SERVER_SK_PREFIX}${padNumber(serverId, INT_DIGITS, 'server id')}`,
})
export const counterKey = (counter: CounterName): ItemKey => ({
  pk: CLUSTER_PK,
  sk: `${COUNTER_SK_PREFIX}${name(counter, 'counter')}`,
})
export const databaseKey = (db: string): ItemKey => ({
  pk: CATALOG_PK,
  sk: `${DATABASE_SK_PREFIX}${name(db, 'database name')}`,
})
export const tablePathKey = (db: string, table: string): ItemKey => ({
  pk: `DB#${name(db, 'database name')}`,
  sk: `${TABLE_SK_PREFIX}${name(table, 'table name')}`,
})
/** The partition holding every table of a database (query it with TABLE_SK_PREFIX). */
export const databaseTablesPk = (db: string): string => `DB#${name(db, 'database name')}`
export const tableIdKey = (tableId: number): ItemKey => ({ pk: tablePk(tableId), sk: 'TABLE' })
export const tableItemsPk = (tableId: number): string => tablePk(tableId)
export const schemaKey = (tableId: number, schemaId: number): ItemKey => ({
  pk: tablePk(tableId),
  sk: `${SCHEMA_SK_PREFIX}${padNumber(schemaId, INT_DIGITS, 'schema id')}`,
})
export const partitionKey = (tableId: number, partitionName: string): ItemKey => ({
  pk: tablePk(tableId),
  sk: `${PARTITION_SK_PREFIX}${name(partitionName, 'partition name')}`,
})
export const bucketKey = (b: BucketRef): ItemKey => ({
  pk: tablePk(b.tableId),
  sk: `${BUCKET_SK_PREFIX}${bucketPart(b)}`,
})
/** Sort-key prefix of the buckets of one partition (or of a non-partitioned table). */
export const bucketSkPrefix = (partitionId?: number | null): string =>
  `${BUCKET_SK_PREFIX}${partitionPart(partitionId)}#`
export const kvSnapshotKey = (b: BucketRef, snapshotId: number): ItemKey => ({
  pk: tablePk(b.tableId),
  sk: `${KV_SNAPSHOT_SK_PREFIX}${bucketPart(b)}#${padNumber(snapshotId, ID_DIGITS, 'snapshot id')}`,
})
/** Sort-key prefix of one bucket's KV snapshots; query it with `reverse` for the newest. */
export const kvSnapshotSkPrefix = (b: BucketRef): string => `${KV_SNAPSHOT_SK_PREFIX}${bucketPart(b)}#`
/**
 * The head of one bucket's KV snapshots: which snapshot items are committed (retained), the next
 * snapshot id, and the leader epoch that wrote it (commits are fenced on it).
 */
export const kvSnapshotHeadKey = (b: BucketRef): ItemKey => ({
  pk: tablePk(b.tableId),
  sk: `${KV_SNAPSHOT_HEAD_SK_PREFIX}${bucketPart(b)}`,
})
export const remoteLogKey = (b: BucketRef): ItemKey => ({
  pk: tablePk(b.tableId),
  sk: `${REMOTE_LOG_SK_PREFIX}${bucketPart(b)}`,
})
export const lakeKey = (tableId: number): ItemKey => ({ pk: tablePk(tableId), sk: 'LAKE' })
/**
 * The counter of a table's auto-increment column (Fluss's `AutoIncrementColumnZNode`): the last id
 * handed out to any bucket; buckets take ranges of `table.auto-increment.cache-size` from it.
 */
export const autoIncrementKey = (tableId: number, columnId: number): ItemKey => ({
  pk: tablePk(tableId),
  sk: `${AUTO_INCREMENT_SK_PREFIX}${padNumber(columnId, INT_DIGITS, 'column id')}`,
})
export const LAKE_CATALOG_PK_PREFIX = 'LAKE_CATALOG#'
/** The local lake catalog's item of a lake table: its current Iceberg metadata location. */
export const lakeCatalogKey = (db: string, table: string): ItemKey => ({
  pk: `${LAKE_CATALOG_PK_PREFIX}${name(db, 'database name')}`,
  sk: `${TABLE_SK_PREFIX}${name(table, 'table name')}`,
})

export const ACL_PK = 'ACL'
export const ACL_BINDING_SK_PREFIX = 'BINDING#'
/** The item of one ACL binding; `parts` are its fields in the order of the table above. */
export const aclBindingKey = (parts: readonly string[]): ItemKey => {
  if (parts.length !== 7 || parts.some(p => typeof p !== 'string' || p.length === 0))
    throw invalid('an ACL binding key needs 7 non-empty parts')
  return { pk: ACL_PK, sk: `${ACL_BINDING_SK_PREFIX}${parts.map(encodeURIComponent).join('#')}` }
}
export const aclVersionKey = (): ItemKey => ({ pk: ACL_PK, sk: 'VERSION' })
export function parseAclBindingSk(sk: string): string[] {
  const parts = after(sk, ACL_BINDING_SK_PREFIX, 'ACL binding').split('#')
  if (parts.length !== 7) throw invalid(`ACL binding key '${sk}' does not have 7 parts`)
  return parts.map(decodeURIComponent)
}

/**
 * Every partition-key family, as IAM `dynamodb:LeadingKeys` patterns: what a deployment scopes
 * each process's grants by (a role may touch only the families it uses).
 */
export const PARTITION_KEY_FAMILIES = {
  cluster: CLUSTER_PK,
  catalog: CATALOG_PK,
  databases: 'DB#*',
  tables: 'TABLE#*',
  lakeCatalog: `${LAKE_CATALOG_PK_PREFIX}*`,
  acls: ACL_PK,
} as const
export type PartitionKeyFamily = keyof typeof PARTITION_KEY_FAMILIES

function after(key: string, prefix: string, what: string): string {
  if (!key.startsWith(prefix) || key.length === prefix.length)
    throw invalid(`${what} key '${key}' does not start with '${prefix}'`)
  return key.slice(prefix.length)
}

function parseBucketPart(parts: string[], key: string): { partitionId: number | null; bucket: number } {
  if (parts.length < 2) throw invalid(`bucket key '${key}' lacks partition and bucket`)
  const partitionId = parts[0] === NO_PARTITION ? null : parsePadded(parts[0], 'partition id')
  return { partitionId, bucket: parsePadded(parts[1], 'bucket') }
}

export const parseServerId = (sk: string): number =>
  parsePadded(after(sk, SERVER_SK_PREFIX, 'server'), 'server id')
export const parseDatabaseName = (sk: string): string => after(sk, DATABASE_SK_PREFIX, 'database')
export const parseTableName = (sk: string): string => after(sk, TABLE_SK_PREFIX, 'table')
export const parseTableId = (pk: string): number => parsePadded(after(pk, 'TABLE#', 'table'), 'table id')
export const parseSchemaId = (sk: string): number =>
  parsePadded(after(sk, SCHEMA_SK_PREFIX, 'schema'), 'schema id')
export const parsePartitionName = (sk: string): string => after(sk, PARTITION_SK_PREFIX, 'partition')

export function parseBucketSk(sk: string): { partitionId: number | null; bucket: number } {
  const parts = after(sk, BUCKET_SK_PREFIX, 'bucket').split('#')
  if (parts.length !== 2) throw invalid(`bucket key '${sk}' is not BUCKET#<partition>#<bucket>`)
  return parseBucketPart(parts, sk)
}

export function parseKvSnapshotSk(sk: string): {
  partitionId: number | null
  bucket: number
  snapshotId: number
} {
  const parts = after(sk, KV_SNAPSHOT_SK_PREFIX, 'kv snapshot').split('#')
  if (parts.length !== 3)
    throw invalid(`kv snapshot key '${sk}' is not KVSNAP#<partition>#<bucket>#<snapshot>`)
  return { ...parseBucketPart(parts, sk), snapshotId: parsePadded(parts[2], 'snapshot id') }
}
