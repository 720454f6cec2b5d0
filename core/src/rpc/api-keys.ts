import * as m from './generated/fluss-api.js'
import { LookupResponseDirect } from './lookup-response-codec.js'
import type { Decoded, Init, MessageType } from './message-codec.js'

/**
 * The Fluss APIs Sluice can encode and decode, with their release-0.9.1 key numbers and version
 * ranges. Being described here does not make an API served: a server serves the APIs it registers
 * handlers for, and its ApiVersions answer advertises exactly those (the coordinator's and tablet
 * server's `served-apis` tests list them).
 *
 * scope: which server role serves the API (Fluss's gateway split): 'coordinator' (AdminGateway,
 * CoordinatorGateway), 'tablet' (TabletServerGateway) or 'both' (RpcGateway, AdminReadOnlyGateway).
 * Versions: all 0 except PUT_KV, LOOKUP and PREFIX_LOOKUP (0..1): version 1 means the client encodes
 * primary keys with the compacted key encoder when the bucket key differs from the primary key.
 * The protobuf schema is the same for every version.
 */
export type ApiScope = 'coordinator' | 'tablet' | 'both'

export interface ApiSpec<Req = unknown, ReqInit = unknown, Res = unknown, ResInit = unknown> {
  readonly name: string
  readonly key: number
  readonly minVersion: number
  readonly maxVersion: number
  readonly scope: ApiScope
  /** Server-to-server APIs (Fluss marks them PRIVATE; informational only). */
  readonly internal: boolean
  readonly request: MessageType<Req, ReqInit>
  readonly response: MessageType<Res, ResInit>
}

type Spec<Q, R, S extends ApiScope> = Omit<
  ApiSpec<Decoded<Q>, Init<Q>, Decoded<R>, Init<R>>,
  'name' | 'scope'
> & {
  readonly scope: S
}

function api<
  Q extends MessageType<unknown, never>,
  R extends MessageType<unknown, never>,
  S extends ApiScope,
>(
  key: number,
  scope: S,
  request: Q,
  response: R,
  opts: { maxVersion?: number; internal?: boolean } = {},
): Spec<Q, R, S> {
  return {
    key,
    minVersion: 0,
    maxVersion: opts.maxVersion ?? 0,
    scope,
    internal: opts.internal ?? false,
    request: request as unknown as MessageType<Decoded<Q>, Init<Q>>,
    response: response as unknown as MessageType<Decoded<R>, Init<R>>,
  }
}

const internal = { internal: true }

const SPECS = {
  API_VERSIONS: api(1000, 'both', m.ApiVersionsRequest, m.ApiVersionsResponse),
  CREATE_DATABASE: api(1001, 'coordinator', m.CreateDatabaseRequest, m.CreateDatabaseResponse),
  DROP_DATABASE: api(1002, 'coordinator', m.DropDatabaseRequest, m.DropDatabaseResponse),
  LIST_DATABASES: api(1003, 'both', m.ListDatabasesRequest, m.ListDatabasesResponse),
  DATABASE_EXISTS: api(1004, 'both', m.DatabaseExistsRequest, m.DatabaseExistsResponse),
  CREATE_TABLE: api(1005, 'coordinator', m.CreateTableRequest, m.CreateTableResponse),
  DROP_TABLE: api(1006, 'coordinator', m.DropTableRequest, m.DropTableResponse),
  GET_TABLE_INFO: api(1007, 'both', m.GetTableInfoRequest, m.GetTableInfoResponse),
  LIST_TABLES: api(1008, 'both', m.ListTablesRequest, m.ListTablesResponse),
  LIST_PARTITION_INFOS: api(1009, 'both', m.ListPartitionInfosRequest, m.ListPartitionInfosResponse),
  TABLE_EXISTS: api(1010, 'both', m.TableExistsRequest, m.TableExistsResponse),
  GET_TABLE_SCHEMA: api(1011, 'both', m.GetTableSchemaRequest, m.GetTableSchemaResponse),
  GET_METADATA: api(1012, 'both', m.MetadataRequest, m.MetadataResponse),
  UPDATE_METADATA: api(1013, 'tablet', m.UpdateMetadataRequest, m.UpdateMetadataResponse, internal),
  PRODUCE_LOG: api(1014, 'tablet', m.ProduceLogRequest, m.ProduceLogResponse),
  FETCH_LOG: api(1015, 'tablet', m.FetchLogRequest, m.FetchLogResponse),
  PUT_KV: api(1016, 'tablet', m.PutKvRequest, m.PutKvResponse, { maxVersion: 1 }),
  LOOKUP: api(1017, 'tablet', m.LookupRequest, LookupResponseDirect, { maxVersion: 1 }),
  NOTIFY_LEADER_AND_ISR: api(
    1018,
    'tablet',
    m.NotifyLeaderAndIsrRequest,
    m.NotifyLeaderAndIsrResponse,
    internal,
  ),
  STOP_REPLICA: api(1019, 'tablet', m.StopReplicaRequest, m.StopReplicaResponse, internal),
  ADJUST_ISR: api(1020, 'coordinator', m.AdjustIsrRequest, m.AdjustIsrResponse, internal),
  LIST_OFFSETS: api(1021, 'tablet', m.ListOffsetsRequest, m.ListOffsetsResponse),
  COMMIT_KV_SNAPSHOT: api(
    1022,
    'coordinator',
    m.CommitKvSnapshotRequest,
    m.CommitKvSnapshotResponse,
    internal,
  ),
  GET_LATEST_KV_SNAPSHOTS: api(1023, 'both', m.GetLatestKvSnapshotsRequest, m.GetLatestKvSnapshotsResponse),
  GET_KV_SNAPSHOT_METADATA: api(
    1024,
    'both',
    m.GetKvSnapshotMetadataRequest,
    m.GetKvSnapshotMetadataResponse,
  ),
  GET_FILESYSTEM_SECURITY_TOKEN: api(
    1025,
    'both',
    m.GetFileSystemSecurityTokenRequest,
    m.GetFileSystemSecurityTokenResponse,
  ),
  INIT_WRITER: api(1026, 'tablet', m.InitWriterRequest, m.InitWriterResponse),
  COMMIT_REMOTE_LOG_MANIFEST: api(
    1027,
    'coordinator',
    m.CommitRemoteLogManifestRequest,
    m.CommitRemoteLogManifestResponse,
    internal,
  ),
  NOTIFY_REMOTE_LOG_OFFSETS: api(
    1028,
    'tablet',
    m.NotifyRemoteLogOffsetsRequest,
    m.NotifyRemoteLogOffsetsResponse,
    internal,
  ),
  NOTIFY_KV_SNAPSHOT_OFFSET: api(
    1029,
    'tablet',
    m.NotifyKvSnapshotOffsetRequest,
    m.NotifyKvSnapshotOffsetResponse,
    internal,
  ),
  COMMIT_LAKE_TABLE_SNAPSHOT: api(
    1030,
    'coordinator',
    m.CommitLakeTableSnapshotRequest,
    m.CommitLakeTableSnapshotResponse,
    internal,
  ),
  NOTIFY_LAKE_TABLE_OFFSET: api(
    1031,
    'tablet',
    m.NotifyLakeTableOffsetRequest,
    m.NotifyLakeTableOffsetResponse,
    internal,
  ),
  GET_LAKE_SNAPSHOT: api(1032, 'both', m.GetLakeSnapshotRequest, m.GetLakeSnapshotResponse),
  LIMIT_SCAN: api(1033, 'tablet', m.LimitScanRequest, m.LimitScanResponse),
  PREFIX_LOOKUP: api(1034, 'tablet', m.PrefixLookupRequest, m.PrefixLookupResponse, { maxVersion: 1 }),
  GET_DATABASE_INFO: api(1035, 'both', m.GetDatabaseInfoRequest, m.GetDatabaseInfoResponse),
  CREATE_PARTITION: api(1036, 'coordinator', m.CreatePartitionRequest, m.CreatePartitionResponse),
  DROP_PARTITION: api(1037, 'coordinator', m.DropPartitionRequest, m.DropPartitionResponse),
  AUTHENTICATE: api(1038, 'both', m.AuthenticateRequest, m.AuthenticateResponse),
  CREATE_ACLS: api(1039, 'coordinator', m.CreateAclsRequest, m.CreateAclsResponse),
  LIST_ACLS: api(1040, 'both', m.ListAclsRequest, m.ListAclsResponse),
  DROP_ACLS: api(1041, 'coordinator', m.DropAclsRequest, m.DropAclsResponse),
  LAKE_TIERING_HEARTBEAT: api(
    1042,
    'coordinator',
    m.LakeTieringHeartbeatRequest,
    m.LakeTieringHeartbeatResponse,
    internal,
  ),
  CONTROLLED_SHUTDOWN: api(
    1043,
    'coordinator',
    m.ControlledShutdownRequest,
    m.ControlledShutdownResponse,
    internal,
  ),
  ALTER_TABLE: api(1044, 'coordinator', m.AlterTableRequest, m.AlterTableResponse),
  DESCRIBE_CLUSTER_CONFIGS: api(
    1045,
    'both',
    m.DescribeClusterConfigsRequest,
    m.DescribeClusterConfigsResponse,
  ),
  GET_TABLE_STATS: api(1059, 'tablet', m.GetTableStatsRequest, m.GetTableStatsResponse),
}

/** Name of a described API, e.g. 'PRODUCE_LOG'. */
export type ApiName = keyof typeof SPECS

type Named<S> = S & { readonly name: string }

/** The described APIs by name. */
export const ApiKeys: { readonly [K in ApiName]: Named<(typeof SPECS)[K]> } = Object.freeze(
  Object.fromEntries(Object.entries(SPECS).map(([name, spec]) => [name, Object.freeze({ name, ...spec })])),
) as { readonly [K in ApiName]: Named<(typeof SPECS)[K]> }

/** Decoded request of an API. */
export type ApiRequest<K extends ApiName> = Decoded<(typeof SPECS)[K]['request']>
/** Encodable request of an API (what a client passes). */
export type ApiRequestInit<K extends ApiName> = Init<(typeof SPECS)[K]['request']>
/** Decoded response of an API (what a client receives). */
export type ApiResponse<K extends ApiName> = Decoded<(typeof SPECS)[K]['response']>
/** Encodable response of an API (what a handler returns). */
export type ApiResponseInit<K extends ApiName> = Init<(typeof SPECS)[K]['response']>

/** APIs a server of the given role serves ('both'-scoped APIs are served by every role). */
export type ApiNameFor<S extends 'coordinator' | 'tablet'> = {
  [K in ApiName]: (typeof SPECS)[K]['scope'] extends S | 'both' ? K : never
}[ApiName]

const BY_KEY = new Map<number, ApiSpec>(Object.values(ApiKeys).map(s => [s.key, s as unknown as ApiSpec]))

/** The described API with this key number, or undefined. */
export function apiByKey(key: number): ApiSpec | undefined {
  return BY_KEY.get(key)
}

/** The spec of an API by name (erased to the common ApiSpec shape). */
export function apiSpec(name: ApiName): ApiSpec {
  return ApiKeys[name] as unknown as ApiSpec
}

/** Every API key of Fluss 0.9.1 and later (1000..1064) by number, for diagnostics. */
const FLUSS_API_NAMES = [
  'API_VERSIONS',
  'CREATE_DATABASE',
  'DROP_DATABASE',
  'LIST_DATABASES',
  'DATABASE_EXISTS',
  'CREATE_TABLE',
  'DROP_TABLE',
  'GET_TABLE_INFO',
  'LIST_TABLES',
  'LIST_PARTITION_INFOS',
  'TABLE_EXISTS',
  'GET_TABLE_SCHEMA',
  'GET_METADATA',
  'UPDATE_METADATA',
  'PRODUCE_LOG',
  'FETCH_LOG',
  'PUT_KV',
  'LOOKUP',
  'NOTIFY_LEADER_AND_ISR',
  'STOP_REPLICA',
  'ADJUST_ISR',
  'LIST_OFFSETS',
  'COMMIT_KV_SNAPSHOT',
  'GET_LATEST_KV_SNAPSHOTS',
  'GET_KV_SNAPSHOT_METADATA',
  'GET_FILESYSTEM_SECURITY_TOKEN',
  'INIT_WRITER',
  'COMMIT_REMOTE_LOG_MANIFEST',
  'NOTIFY_REMOTE_LOG_OFFSETS',
  'NOTIFY_KV_SNAPSHOT_OFFSET',
  'COMMIT_LAKE_TABLE_SNAPSHOT',
  'NOTIFY_LAKE_TABLE_OFFSET',
  'GET_LAKE_SNAPSHOT',
  'LIMIT_SCAN',
  'PREFIX_LOOKUP',
  'GET_DATABASE_INFO',
  'CREATE_PARTITION',
  'DROP_PARTITION',
  'AUTHENTICATE',
  'CREATE_ACLS',
  'LIST_ACLS',
  'DROP_ACLS',
  'LAKE_TIERING_HEARTBEAT',
  'CONTROLLED_SHUTDOWN',
  'ALTER_TABLE',
  'DESCRIBE_CLUSTER_CONFIGS',
  'ALTER_CLUSTER_CONFIGS',
  'ADD_SERVER_TAG',
  'REMOVE_SERVER_TAG',
  'REBALANCE',
  'LIST_REBALANCE_PROGRESS',
  'CANCEL_REBALANCE',
  'PREPARE_LAKE_TABLE_SNAPSHOT',
  'REGISTER_PRODUCER_OFFSETS',
  'GET_PRODUCER_OFFSETS',
  'DELETE_PRODUCER_OFFSETS',
  'ACQUIRE_KV_SNAPSHOT_LEASE',
  'RELEASE_KV_SNAPSHOT_LEASE',
  'DROP_KV_SNAPSHOT_LEASE',
  'GET_TABLE_STATS',
  'ALTER_DATABASE',
  'SCAN_KV',
  'GET_CLUSTER_HEALTH',
  'LIST_REMOTE_LOG_MANIFESTS',
  'LIST_KV_SNAPSHOTS',
] as const

/** A printable name for any api key: 'PRODUCE_LOG(1014)', 'CREATE_ACLS(1039)' or 'UNKNOWN(7)'. */
export function describeApiKey(key: number): string {
  return `${FLUSS_API_NAMES[key - 1000] ?? 'UNKNOWN'}(${key})`
}
