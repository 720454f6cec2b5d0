import type { SchemaInfo, TableChanges } from '@sluice/client'
import type { Row } from '@sluice/core'
import type {
  DatabaseDescriptor,
  DatabaseInfo,
  TableDescriptor,
  TableInfo,
  TablePath,
} from '@sluice/core/metadata'
import { GatewayError } from '../errors/gateway-error.js'
import type { Principal } from '../types.js'

/**
 * What the gateway's routes need from a Fluss cluster. `SdkBackend` implements it over the
 * TypeScript SDK; `MemoryGatewayBackend` (testing/) is the in-memory twin routes are tested with.
 * Failures are FlussErrors (mapped to HTTP by the error table) or GatewayErrors (e.g. 501
 * `unsupported` for operations the SDK does not offer yet).
 */
export interface GatewayBackend {
  listDatabases(ctx: BackendContext): Promise<string[]>
  getDatabase(ctx: BackendContext, name: string): Promise<DatabaseInfo>
  createDatabase(
    ctx: BackendContext,
    name: string,
    descriptor: DatabaseDescriptor,
    ignoreIfExists: boolean,
  ): Promise<void>
  dropDatabase(ctx: BackendContext, name: string, ignoreIfNotExists: boolean, cascade: boolean): Promise<void>

  listTables(ctx: BackendContext, database: string): Promise<string[]>
  getTableInfo(ctx: BackendContext, path: TablePath): Promise<TableInfo>
  createTable(
    ctx: BackendContext,
    path: TablePath,
    descriptor: TableDescriptor,
    ignoreIfExists: boolean,
  ): Promise<void>
  dropTable(ctx: BackendContext, path: TablePath, ignoreIfNotExists: boolean): Promise<void>
  /** ALTER TABLE: properties or columns (see the SDK's `TableChanges`). */
  alterTable(
    ctx: BackendContext,
    path: TablePath,
    changes: TableChanges,
    ignoreIfNotExists: boolean,
  ): Promise<void>
  /** Every schema version of the table, oldest first. */
  getTableSchemas(ctx: BackendContext, path: TablePath): Promise<SchemaInfo[]>

  listPartitions(ctx: BackendContext, path: TablePath): Promise<PartitionInfo[]>
  createPartition(
    ctx: BackendContext,
    path: TablePath,
    spec: PartitionSpecValues,
    ignoreIfExists: boolean,
  ): Promise<void>
  dropPartition(
    ctx: BackendContext,
    path: TablePath,
    spec: PartitionSpecValues,
    ignoreIfNotExists: boolean,
  ): Promise<void>

  /**
   * Appends full-width rows to a log table. Like every write, it goes to the table `table`
   * describes, as rows of its schema: when the table at that path is now another one (dropped and
   * created again) or has another schema, it throws TableChangedError and writes nothing.
   */
  append(ctx: BackendContext, table: TableInfo, rows: readonly Row[]): Promise<WriteResult>
  /**
   * Optional: an append body written as whole Arrow log batches instead of row by row. A JSON
   * `{"rows":[…]}` body the direct reader takes, or an Arrow IPC stream with exactly the table's
   * columns (names and the Arrow types Fluss writes, in column order) and valid batches, is
   * validated whole and encoded into log batches with the table's compression; anything else is
   * undefined, and the caller reads the rows and uses `append`. Nothing is written before `write`
   * is called.
   */
  prepareBodyAppend?(
    ctx: BackendContext,
    table: TableInfo,
    body: AppendBody,
    limits: BodyAppendLimits,
  ): Promise<PreparedBodyAppend | undefined>
  /** Upserts full-width rows; with `targetColumns`, only those columns (plus the key) are updated. */
  upsert(
    ctx: BackendContext,
    table: TableInfo,
    rows: readonly Row[],
    targetColumns?: readonly string[],
  ): Promise<WriteResult>
  /** Deletes by primary key: full-width rows whose key columns are set. */
  delete(ctx: BackendContext, table: TableInfo, rows: readonly Row[]): Promise<WriteResult>

  /** Point lookups by full primary key (full-width rows with the key set); null when absent. */
  lookup(ctx: BackendContext, table: TableInfo, keys: readonly Row[]): Promise<(Row | null)[]>
  /** Rows whose `lookupColumns` equal each prefix (full-width rows with those columns set). */
  prefixLookup(
    ctx: BackendContext,
    table: TableInfo,
    lookupColumns: readonly string[],
    prefixes: readonly Row[],
    maxRowsPerPrefix: number,
  ): Promise<PrefixLookupResult[]>

  /** Reads log records from a start offset per bucket. */
  scan(ctx: BackendContext, table: TableInfo, request: ScanRequest): Promise<ScanResult>
  /** The current rows of a primary-key table (one partition of a partitioned one), bounded. */
  snapshot(ctx: BackendContext, table: TableInfo, request: SnapshotRequest): Promise<SnapshotResult>
  /**
   * Union read: the table's lake snapshot plus its log after the snapshot (primary-key tables
   * merged by key, the log winning), cut to `maxRows`; the log alone while nothing is tiered.
   */
  unionRead(ctx: BackendContext, table: TableInfo, request: UnionReadRequest): Promise<UnionReadResult>
  /** Lake tiering progress of a table. */
  tieringStatus(ctx: BackendContext, table: TableInfo): Promise<TieringStatus>
}

export interface BackendContext {
  /** Aborted when the HTTP request's deadline passes. */
  readonly signal: AbortSignal
  readonly principal: Principal
}

export type PartitionSpecValues = Readonly<Record<string, string>>

export interface PartitionInfo {
  readonly partitionId: number
  readonly partitionName: string
  readonly spec: PartitionSpecValues
}

/** One row a write did not get acknowledged. */
export interface RowFailure {
  /** Index into the rows passed to the write. */
  readonly index: number
  readonly error: unknown
}

/** The body of an append request. */
export interface AppendBody {
  readonly format: 'json' | 'arrow'
  readonly bytes: Uint8Array
}

export interface BodyAppendLimits {
  /** Most rows the body may hold (more: undefined, the row path reports it). */
  readonly maxRows: number
  /** Most bytes one Arrow record batch of the body may decompress to. */
  readonly maxUncompressedBytes: number
  /** Deepest JSON nesting a body may have. */
  readonly maxJsonDepth: number
}

/** A validated append body, ready to be appended as log batches. */
export interface PreparedBodyAppend {
  /** Rows in the body (row indexes of `write` failures count them in body order). */
  readonly rowCount: number
  /** Appends every log batch; a batch fails or succeeds as a whole. */
  write(ctx: BackendContext): Promise<WriteResult>
}

/** Rows not listed in `failures` were acknowledged by the cluster. */
export interface WriteResult {
  readonly failures: readonly RowFailure[]
}

export interface PrefixLookupResult {
  readonly rows: Row[]
  /** More rows matched than `maxRowsPerPrefix`. */
  readonly truncated: boolean
}

export type StartOffset = number | 'earliest' | 'latest'

export interface BucketStart {
  readonly partitionId?: number
  readonly bucket: number
  readonly offset: StartOffset
}

export interface ScanRequest {
  readonly buckets: readonly BucketStart[]
  /** Column indexes to return, in this order; undefined = all columns. */
  readonly projection?: readonly number[]
  readonly maxRecords: number
  /** Longest wait for records when none are available. */
  readonly maxWaitMs: number
}

export type ChangeTypeName = 'append_only' | 'insert' | 'update_before' | 'update_after' | 'delete'

export interface ScanRecord {
  readonly partitionId?: number
  readonly bucket: number
  readonly offset: number
  readonly timestampMs: number
  readonly changeType: ChangeTypeName
  /** Values of the projected columns (all columns without a projection). */
  readonly row: Row
}

export interface BucketPosition {
  readonly partitionId?: number
  readonly bucket: number
  /** Next offset to read from this bucket. */
  readonly offset: number
}

export interface ScanResult {
  readonly records: ScanRecord[]
  /** One entry per requested bucket. */
  readonly positions: BucketPosition[]
  /** True when records that were unread when the scan began are left (continue from `positions`). */
  readonly more: boolean
}

export interface SnapshotRequest {
  readonly partitionId?: number
  readonly maxRows: number
}

export interface SnapshotResult {
  readonly rows: Row[]
  readonly truncated: boolean
}

export interface UnionReadRequest {
  readonly maxRows: number
  /** Most keys a primary-key union read holds from the log after the lake snapshot. */
  readonly maxPendingKeys: number
  /** The log part must be read within this time. */
  readonly timeoutMs: number
}

export interface UnionReadResult {
  readonly rows: Row[]
  readonly truncated: boolean
  /** The lake snapshot read; absent when nothing is tiered yet. */
  readonly lakeSnapshotId?: number
}

export interface TieringStatus {
  readonly lakeEnabled: boolean
  readonly lakeSnapshotId?: number
  /** Per bucket, the log offset up to which data is in the lake. */
  readonly tieredOffsets?: readonly BucketPosition[]
}

/**
 * A write's table info no longer describes the table the backend writes to (it was dropped and
 * created again, or its schema changed): nothing was written. The write routes load the table
 * again, validate the request against it and retry once; when the table changes again meanwhile
 * this is the answer (409, retry).
 */
export class TableChangedError extends GatewayError {
  constructor(path: TablePath) {
    super(
      'failed_precondition',
      `Table ${path.databaseName}.${path.tableName} changed while this request was served (it was created again or its schema changed); nothing was written, retry.`,
    )
  }
}
