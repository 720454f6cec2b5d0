import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { WriterOptions } from '../client-options.js'
import { checkCompactedKv, tableName } from '../table/key-encoding.js'
import type { RowInput } from '../table/row-converter.js'
import { KvBatchFormat, type KvWriteRecord } from './batch-format.js'
import { type EncodedKvRecord, KvRecordEncoder } from './kv-record-encoder.js'
import type { WriterNetwork } from './sender.js'
import { checkTargetColumns } from './target-columns.js'
import type { WriteBatch, WriteResult } from './write-batch.js'
import type { WriterMemory } from './writer-memory.js'
import { type ClosableWriter, type TableWriterOptions, WriterPipeline } from './writer-pipeline.js'

/** Where an acknowledged upsert or delete landed (Fluss's `UpsertResult` / `DeleteResult`). */
export interface UpsertResult {
  readonly bucket: number
  /** Set for partitioned tables. */
  readonly partitionId?: number
  /**
   * The bucket's log end offset after the batch holding the record (shared by every record of the
   * batch); -1 when unknown (the server reported the batch as an already written duplicate).
   */
  readonly logEndOffset: number
}

export type DeleteResult = UpsertResult

/** Options of one upsert writer. */
export type UpsertWriterOptions = TableWriterOptions

/** Everything an upsert writer is built from (supplied by `Upsert.createWriter()`). */
export interface UpsertWriterContext {
  readonly info: TableInfo
  readonly options: WriterOptions
  /** Column indexes of a partial update, in the order rows give them; undefined = full rows. */
  readonly targetColumns: readonly number[] | undefined
  readonly memory: WriterMemory
  /** Must send PUT_KV with the same target columns. */
  readonly network: WriterNetwork
  /** Called once when the writer is closed or aborted. */
  readonly onClosed?: (writer: UpsertWriter) => void
}

/**
 * Writes a primary-key table (Fluss's `UpsertWriter`): `upsert(row)` inserts or replaces the row
 * with its primary key, `delete(row)` removes it. A delete needs only the key: an object with the
 * key columns, or an array whose other values are ignored. Records are
 * validated and encoded at once (a bad row throws and nothing is buffered), gathered into KV record
 * batches per bucket, and sent as PUT_KV requests per leader in the background, with the writer id
 * and batch sequences of an idempotent writer, so retries never apply a batch twice.
 *
 * A writer made with `partialUpdate(columns)` writes only those columns: rows give the target
 * columns, in that order (or as an object keyed by their names); other columns keep their stored
 * values (NULL for new keys).
 *
 * Backpressure and delivery work as for the AppendWriter: `upsert`/`delete` return undefined, or a
 * promise to await when the write buffer is full; `flush()` resolves once everything written before
 * it is acknowledged and rejects with the first failure; the `...WithResult` variants cost a promise
 * per record.
 */
export class UpsertWriter implements ClosableWriter {
  readonly #info: TableInfo
  readonly #targetColumns: readonly number[] | undefined
  readonly #encoder: KvRecordEncoder
  readonly #pipeline: WriterPipeline<KvWriteRecord>
  readonly #onClosed: () => void

  constructor(context: UpsertWriterContext, writerOptions: UpsertWriterOptions = {}) {
    const { info, options, targetColumns } = context
    if (!info.hasPrimaryKey) {
      throw new FlussError(
        'NON_PRIMARY_KEY_TABLE_EXCEPTION',
        `Table ${tableName(info)} is not a Primary Key Table and doesn't support UpsertWriter.`,
      )
    }
    checkCompactedKv(info)
    checkTargetColumns(info, targetColumns)
    this.#info = info
    this.#targetColumns = targetColumns
    this.#encoder = new KvRecordEncoder(info, targetColumns)
    this.#onClosed = () => context.onClosed?.(this)
    const pipelineContext = {
      schemaId: info.schemaId,
      options,
      format: new KvBatchFormat(info.schemaId, options.batchSizeBytes),
      memory: context.memory,
      network: context.network,
    }
    this.#pipeline = new WriterPipeline(pipelineContext, writerOptions)
  }

  get tableInfo(): TableInfo {
    return this.#info
  }

  /** The columns a partial update writes (indexes), or undefined for full rows. */
  get targetColumns(): readonly number[] | undefined {
    return this.#targetColumns
  }

  /** Bytes of records this writer's connection holds unacknowledged. */
  get bufferedBytes(): number {
    return this.#pipeline.bufferedBytes
  }

  /** Inserts or replaces the row with this row's primary key; see the class comment for the result. */
  upsert(row: RowInput): Promise<void> | undefined {
    this.#add(() => this.#encoder.encodeUpsert(row))
    return this.#pipeline.roomWait
  }

  /** Deletes the row with this row's primary key (a partial update writer NULLs its target columns). */
  delete(row: RowInput): Promise<void> | undefined {
    this.#add(() => this.#encoder.encodeDelete(row))
    return this.#pipeline.roomWait
  }

  /** Like `upsert`, resolving with the bucket and log end offset once acknowledged. */
  upsertWithResult(row: RowInput): Promise<UpsertResult> {
    return this.#pipeline.resultOf(this.#add(() => this.#encoder.encodeUpsert(row))).then(toUpsertResult)
  }

  /** Like `delete`, resolving with the bucket and log end offset once acknowledged. */
  deleteWithResult(row: RowInput): Promise<DeleteResult> {
    return this.#pipeline.resultOf(this.#add(() => this.#encoder.encodeDelete(row))).then(toUpsertResult)
  }

  /** Sends every buffered record now; resolves when all records written so far are acknowledged. */
  flush(): Promise<void> {
    return this.#pipeline.flush()
  }

  /** Flushes, then stops the writer; further writes throw. Rejects like `flush` on a failure. */
  close(): Promise<void> {
    return this.#pipeline.close(this.#onClosed)
  }

  /** Stops at once: records not yet sent fail with `error`; answers still due are handled. */
  abort(error: FlussError): void {
    this.#pipeline.abort(error, this.#onClosed)
  }

  #add(encode: () => EncodedKvRecord): { batch: WriteBatch<KvWriteRecord>; index: number } {
    this.#pipeline.checkWritable()
    const { record, partitionName, bucket } = encode()
    return this.#pipeline.add(record, partitionName, bucket)
  }
}

function toUpsertResult(r: WriteResult): UpsertResult {
  return r.partitionId === undefined
    ? { bucket: r.bucket, logEndOffset: r.offset }
    : { bucket: r.bucket, partitionId: r.partitionId, logEndOffset: r.offset }
}
