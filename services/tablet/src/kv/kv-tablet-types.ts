import type { Configuration } from '@sluice/core/config'
import type { LogAppendInfo, LogReadParams, LogReadResult } from '../log/log-tablet-types.js'
import type { BatchMetadata } from '../log/writer-state-entry.js'
import type { AutoIncrementIds } from './auto-increment-ids.js'
import type { KvSchemaSource } from './kv-schemas.js'
import type { RocksDbKvOptions } from './rocksdb-kv.js'

/**
 * The bucket's log as the KvTablet uses it: the changelog is appended through it, read back for
 * recovery, and the log's idempotent-writer state tells retried batches apart. `LogTablet` fits.
 */
export interface KvChangelogLog {
  readonly name: string
  readonly logStartOffset: number
  readonly logEndOffset: number
  readonly highWatermark: number
  appendAsLeader(records: Uint8Array): Promise<LogAppendInfo>
  read(params: LogReadParams): Promise<LogReadResult>
  writerState(
    writerId: number,
  ): { findDuplicate(batchSequence: number): BatchMetadata | undefined } | undefined
}

/** What a KvTablet is built from. */
export interface KvTabletOptions {
  /** The bucket's log (its LogTablet). */
  readonly log: KvChangelogLog
  /**
   * The table's schemas (latest and by id) and how its KV keys are made (`TableSchemas`). Recovery
   * re-keys the changelog with that key encoding, so it must match the clients' key encoding.
   */
  readonly schemas: KvSchemaSource
  /** Table properties (`TableInfo.tableConfig`): merge engine, delete behavior, changelog image, compression. */
  readonly tableConfig: Configuration
  /**
   * The schema id `tableConfig` was read with (`TableInfo.schemaId`): columns the properties name
   * (the versioned merge engine's version column) are resolved in it, then followed by column id.
   * Default: the latest schema.
   */
  readonly tableSchemaId?: number
  /** `kv.rocksdb.*` settings (`rocksDbKvOptions(serverConf)`). */
  readonly rocksDb: RocksDbKvOptions
  /** `kv.recover.log-record-batch.max-size`: log bytes read at once while rebuilding. */
  readonly recoverBatchBytes: number
  /** Bound on this bucket's queued puts (the log's `maxQueuedOperations`). */
  readonly maxQueuedOperations: number
  /** Bound on the pre-write buffer: puts are refused (RESOURCE_EXHAUSTED) while it holds more. */
  readonly maxPendingBytes: number
  /**
   * Ids for a table's auto-increment column, one instance per opening (required only for tables
   * that have one; puts on such a table are refused without it).
   */
  readonly autoIncrementIds?: AutoIncrementIds
  /** Names the bucket in messages. Default: the log's name. */
  readonly name?: string
  /**
   * Whether this server still leads the bucket at the epoch the KvTablet was opened for; checked by
   * every put right before it takes its offsets and appends (puts queued while the replica became a
   * follower must not append to its log). Default: always.
   */
  readonly isLeader?: () => boolean
}

/** How a put was applied. */
export interface KvPutResult {
  /** Offset of the changelog batch (its first record, or the offset an empty batch took). */
  readonly firstOffset: number
  /** Last offset of the batch: the offset to wait for with acks=all is `lastOffset + 1`. */
  readonly lastOffset: number
  /** Log end offset right after the append. */
  readonly logEndOffset: number
  /** Changelog records written (0 for a put without effect). */
  readonly changelogRecords: number
  /** True when the batch repeated one the writer already wrote: nothing was applied again. */
  readonly duplicate: boolean
}

/** A put's options from the request: a partial update's column positions, and the merge mode. */
export interface KvPutOptions {
  /** Column positions in the latest schema; undefined, null or empty = whole rows. */
  readonly targetColumns?: readonly number[] | null
  /** PutKvRequest.agg_mode: 1 = OVERWRITE (bypasses the merge engine); anything else = DEFAULT. */
  readonly aggMode?: number | null
}

/** Fluss's `MergeMode` values on the wire. */
export const MERGE_MODE_DEFAULT = 0
export const MERGE_MODE_OVERWRITE = 1
