/**
 * The one table of error codes. Numeric codes are Fluss's (`Errors.java`, release 0.9.1), so they
 * cross the RPC boundary unchanged; codes at 1000 and above are Sluice's own and never sent to
 * Fluss clients (they map to the nearest Fluss code on the wire, see `wireCode`).
 *
 * retriable: a client may retry the same request (Fluss `RetriableException`).
 * staleMetadata: the client should refresh metadata before retrying (Fluss `InvalidMetadataException`).
 * http: the gateway's status; gatewayCode: the gateway envelope's `code`.
 */
export interface ErrorSpec {
  readonly code: number
  readonly name: string
  readonly message: string
  readonly retriable: boolean
  readonly staleMetadata: boolean
  readonly http: number
  readonly gatewayCode: string
  /** For Sluice-only codes: the Fluss code sent on the wire instead. */
  readonly wireCode?: number
}

type Row = [
  code: number,
  message: string,
  flags: '' | 'R' | 'RM',
  http: number,
  gatewayCode: string,
  wireCode?: number,
]

const TABLE = {
  UNKNOWN_SERVER_ERROR: [
    -1,
    'The server experienced an unexpected error when processing the request.',
    '',
    500,
    'internal',
  ],
  NONE: [0, 'No error.', '', 200, 'ok'],
  NETWORK_EXCEPTION: [1, 'The server disconnected before a response was received.', 'RM', 503, 'unavailable'],
  UNSUPPORTED_VERSION: [2, 'The version of API is not supported.', '', 501, 'unsupported'],
  CORRUPT_MESSAGE: [
    3,
    'This message has failed its CRC checksum, exceeds the valid size, has a null key for a primary key table, or is otherwise corrupt.',
    'R',
    400,
    'invalid_argument',
  ],
  DATABASE_NOT_EXIST: [4, 'The database does not exist.', '', 404, 'database_not_found'],
  DATABASE_NOT_EMPTY: [5, 'The database is not empty.', '', 409, 'database_not_empty'],
  DATABASE_ALREADY_EXIST: [6, 'The database already exists.', '', 409, 'database_already_exists'],
  TABLE_NOT_EXIST: [7, 'The table does not exist.', '', 404, 'table_not_found'],
  TABLE_ALREADY_EXIST: [8, 'The table already exists.', '', 409, 'table_already_exists'],
  SCHEMA_NOT_EXIST: [9, 'The schema does not exist.', 'R', 404, 'not_found'],
  LOG_STORAGE_EXCEPTION: [10, 'Exception occur while storage data for log in server.', '', 500, 'backend'],
  KV_STORAGE_EXCEPTION: [11, 'Exception occur while storage data for kv in server.', '', 500, 'backend'],
  NOT_LEADER_OR_FOLLOWER: [12, 'Not leader or follower.', 'RM', 503, 'unavailable'],
  RECORD_TOO_LARGE_EXCEPTION: [13, 'The record is too large.', '', 413, 'limit_exceeded'],
  CORRUPT_RECORD_EXCEPTION: [14, 'The record is corrupt.', 'R', 400, 'invalid_argument'],
  INVALID_TABLE_EXCEPTION: [
    15,
    'The client has attempted to perform an operation on an invalid table.',
    '',
    400,
    'invalid_argument',
  ],
  INVALID_DATABASE_EXCEPTION: [
    16,
    'The client has attempted to perform an operation on an invalid database.',
    '',
    400,
    'invalid_argument',
  ],
  INVALID_REPLICATION_FACTOR: [
    17,
    'The replication factor is larger then the number of available tablet servers.',
    '',
    400,
    'invalid_argument',
  ],
  INVALID_REQUIRED_ACKS: [
    18,
    'Produce request specified an invalid value for required acks.',
    '',
    400,
    'invalid_argument',
  ],
  LOG_OFFSET_OUT_OF_RANGE_EXCEPTION: [19, 'The log offset is out of range.', '', 416, 'out_of_range'],
  NON_PRIMARY_KEY_TABLE_EXCEPTION: [
    20,
    'The table is not primary key table.',
    '',
    400,
    'failed_precondition',
  ],
  UNKNOWN_TABLE_OR_BUCKET_EXCEPTION: [21, 'The table or bucket does not exist.', 'RM', 404, 'not_found'],
  INVALID_UPDATE_VERSION_EXCEPTION: [22, 'The update version is invalid.', '', 409, 'failed_precondition'],
  INVALID_COORDINATOR_EXCEPTION: [23, 'The coordinator is invalid.', '', 503, 'unavailable'],
  FENCED_LEADER_EPOCH_EXCEPTION: [24, 'The leader epoch is invalid.', '', 409, 'failed_precondition'],
  REQUEST_TIME_OUT: [25, 'The request time out.', 'R', 504, 'timeout'],
  STORAGE_EXCEPTION: [26, 'The general storage exception.', 'R', 503, 'unavailable'],
  OPERATION_NOT_ATTEMPTED_EXCEPTION: [
    27,
    'The server did not attempt to execute this operation.',
    '',
    500,
    'backend',
  ],
  NOT_ENOUGH_REPLICAS_AFTER_APPEND_EXCEPTION: [
    28,
    'Records are written to the server already, but to fewer in-sync replicas than required.',
    'R',
    503,
    'unavailable',
  ],
  NOT_ENOUGH_REPLICAS_EXCEPTION: [
    29,
    'Messages are rejected since there are fewer in-sync replicas than required.',
    'R',
    503,
    'unavailable',
  ],
  SECURITY_TOKEN_EXCEPTION: [30, 'Get file access security token exception.', '', 500, 'backend'],
  OUT_OF_ORDER_SEQUENCE_EXCEPTION: [
    31,
    'The tablet server received an out of order sequence batch.',
    '',
    409,
    'failed_precondition',
  ],
  DUPLICATE_SEQUENCE_EXCEPTION: [
    32,
    'The tablet server received a duplicate sequence batch.',
    '',
    409,
    'already_exists',
  ],
  UNKNOWN_WRITER_ID_EXCEPTION: [
    33,
    'This exception is raised by the tablet server if it could not locate the writer metadata.',
    '',
    409,
    'failed_precondition',
  ],
  INVALID_COLUMN_PROJECTION: [34, 'The requested column projection is invalid.', '', 400, 'invalid_argument'],
  INVALID_TARGET_COLUMN: [
    35,
    'The requested target column to write is invalid.',
    '',
    400,
    'invalid_argument',
  ],
  PARTITION_NOT_EXISTS: [36, 'The partition does not exist.', '', 404, 'partition_not_found'],
  TABLE_NOT_PARTITIONED_EXCEPTION: [37, 'The table is not partitioned.', '', 400, 'failed_precondition'],
  INVALID_TIMESTAMP_EXCEPTION: [38, 'The timestamp is invalid.', '', 400, 'invalid_argument'],
  INVALID_CONFIG_EXCEPTION: [39, 'The config is invalid.', '', 400, 'invalid_argument'],
  LAKE_STORAGE_NOT_CONFIGURED_EXCEPTION: [
    40,
    'The lake storage is not configured.',
    '',
    400,
    'failed_precondition',
  ],
  KV_SNAPSHOT_NOT_EXIST: [41, 'The kv snapshot is not exist.', '', 404, 'not_found'],
  PARTITION_ALREADY_EXISTS: [42, 'The partition already exists.', '', 409, 'partition_already_exists'],
  PARTITION_SPEC_INVALID_EXCEPTION: [43, 'The partition spec is invalid.', '', 400, 'invalid_argument'],
  LEADER_NOT_AVAILABLE_EXCEPTION: [
    44,
    'There is no currently available leader for the given partition.',
    'RM',
    503,
    'unavailable',
  ],
  PARTITION_MAX_NUM_EXCEPTION: [45, 'Exceed the maximum number of partitions.', '', 400, 'limit_exceeded'],
  AUTHENTICATE_EXCEPTION: [46, 'Authentication failed.', '', 401, 'unauthenticated'],
  SECURITY_DISABLED_EXCEPTION: [47, 'Security is disabled.', '', 400, 'failed_precondition'],
  AUTHORIZATION_EXCEPTION: [48, 'Authorization failed', '', 403, 'unauthorized'],
  BUCKET_MAX_NUM_EXCEPTION: [49, 'Exceed the maximum number of buckets', '', 400, 'limit_exceeded'],
  FENCED_TIERING_EPOCH_EXCEPTION: [50, 'The tiering epoch is invalid.', '', 409, 'failed_precondition'],
  RETRIABLE_AUTHENTICATE_EXCEPTION: [
    51,
    'Authentication failed with retriable exception. ',
    'R',
    401,
    'unauthenticated',
  ],
  INVALID_SERVER_RACK_INFO_EXCEPTION: [52, 'The server rack info is invalid.', '', 400, 'invalid_argument'],
  LAKE_SNAPSHOT_NOT_EXIST: [53, 'The lake snapshot is not exist.', '', 404, 'not_found'],
  LAKE_TABLE_ALREADY_EXIST: [54, 'The lake table already exists.', '', 409, 'already_exists'],
  INELIGIBLE_REPLICA_EXCEPTION: [
    55,
    'The new ISR contains at least one ineligible replica.',
    '',
    409,
    'failed_precondition',
  ],
  INVALID_ALTER_TABLE_EXCEPTION: [56, 'The alter table is invalid.', '', 400, 'invalid_argument'],
  DELETION_DISABLED_EXCEPTION: [
    57,
    'Deletion operations are disabled on this table.',
    '',
    400,
    'failed_precondition',
  ],
  SERVER_NOT_EXIST_EXCEPTION: [58, 'The server is not exist.', '', 404, 'not_found'],
  SEVER_TAG_ALREADY_EXIST_EXCEPTION: [59, 'The server tag already exist.', '', 409, 'already_exists'],
  SEVER_TAG_NOT_EXIST_EXCEPTION: [60, 'The server tag not exist.', '', 404, 'not_found'],
  REBALANCE_FAILURE_EXCEPTION: [61, 'The rebalance task failure.', '', 500, 'backend'],
  NO_REBALANCE_IN_PROGRESS_EXCEPTION: [62, 'No rebalance task in progress.', '', 404, 'not_found'],
  INVALID_PRODUCER_ID_EXCEPTION: [
    63,
    'The client has attempted to perform an operation with an invalid producer ID.',
    '',
    400,
    'invalid_argument',
  ],
  // Sluice's own codes (never sent as such to Fluss clients).
  METASTORE_CONFLICT: [
    1000,
    'A conditional write to the metadata store lost its condition.',
    'R',
    409,
    'failed_precondition',
    22,
  ],
  LAKE_COMMIT_CONFLICT: [
    1001,
    'A concurrent lake commit won; this commit was not applied.',
    'R',
    409,
    'failed_precondition',
    26,
  ],
  INVALID_REQUEST: [1002, 'The request is malformed.', '', 400, 'invalid_argument', 3],
  DISK_FULL: [
    1003,
    'The data disk is full; writes are refused until space is freed.',
    'R',
    507,
    'resource_exhausted',
    10,
  ],
  SHUTTING_DOWN: [1004, 'The server is shutting down.', 'RM', 503, 'unavailable', 12],
  RESOURCE_EXHAUSTED: [
    1005,
    'A configured limit was reached; retry later.',
    'R',
    429,
    'resource_exhausted',
    26,
  ],
  MISROUTED_KEY: [
    1006,
    'A key was sent to a bucket it does not belong to (the client computed another bucket).',
    '',
    400,
    'invalid_argument',
    15,
  ],
  STALE_SCHEMA: [
    1007,
    "A row was written under a newer schema whose value this reader's older schema cannot hold (a column was widened since); read with the table's current schema.",
    '',
    409,
    'failed_precondition',
    -1,
  ],
} as const satisfies Record<string, Row>

export type ErrorName = keyof typeof TABLE

export const ERRORS: { readonly [K in ErrorName]: ErrorSpec } = Object.fromEntries(
  Object.entries(TABLE).map(([name, row]) => {
    const [code, message, flags, http, gatewayCode, wireCode] = row as Row
    const spec: ErrorSpec = {
      code,
      name,
      message,
      retriable: flags.includes('R'),
      staleMetadata: flags.includes('M'),
      http,
      gatewayCode,
      ...(wireCode === undefined ? {} : { wireCode }),
    }
    return [name, spec]
  }),
) as { readonly [K in ErrorName]: ErrorSpec }

const BY_CODE = new Map<number, ErrorSpec>(Object.values(ERRORS).map(e => [e.code, e]))

export function errorByCode(code: number): ErrorSpec {
  return BY_CODE.get(code) ?? ERRORS.UNKNOWN_SERVER_ERROR
}
