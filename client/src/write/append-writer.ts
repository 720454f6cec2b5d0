import type { ArrowCompressionInfo } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { partitionGetter, type TableInfo } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { WriterOptions } from '../client-options.js'
import { RowConverter, type RowInput } from '../table/row-converter.js'
import { ArrowLogBatchFormat } from './batch-format.js'
import type { WriteBucketAssigner } from './bucket-assigner.js'
import type { WriterNetwork } from './sender.js'
import type { AppendResult, WriteBatch } from './write-batch.js'
import type { WriterMemory } from './writer-memory.js'
import { type ClosableWriter, type TableWriterOptions, WriterPipeline } from './writer-pipeline.js'

export type { WriteFailure } from './writer-pipeline.js'

/** Options of one append writer. */
export type AppendWriterOptions = TableWriterOptions

/** Everything a writer is built from (supplied by `Table.newAppend()`). */
export interface AppendWriterContext {
  readonly info: TableInfo
  readonly options: WriterOptions
  readonly compression: ArrowCompressionInfo
  readonly memory: WriterMemory
  readonly network: WriterNetwork
  readonly bucketAssigner: WriteBucketAssigner
  /** Called once when the writer is closed or aborted. */
  readonly onClosed?: (writer: AppendWriter) => void
}

/**
 * Appends rows to a log table (Fluss's `AppendWriter`). Rows are validated, encoded into per-bucket
 * Arrow batches and sent in the background; there is no promise or timer per row.
 *
 * Backpressure: `append(row)` returns `undefined` while the connection's write buffer
 * (`client.writer.buffer.memory-size`) has room. When the buffer is full the row is still taken,
 * and `append` returns a Promise that resolves once there is room again: await it before appending
 * more. Calling `append` again while that promise is pending throws RESOURCE_EXHAUSTED, so memory
 * stays bounded. Typical use: `const wait = writer.append(row); if (wait) await wait`.
 *
 * Delivery: `flush()` resolves when every row appended before it is acknowledged (per
 * `client.writer.acks`) and rejects with the first failure; `onError` reports failures to callers
 * that never flush. `appendWithResult(row)` gives one row's bucket and offset, at the cost of a
 * promise per row: use it only where a per-row acknowledgement is needed.
 */
export class AppendWriter implements ClosableWriter {
  readonly #info: TableInfo
  readonly #converter: RowConverter
  readonly #partitionOf: ((row: Row) => string) | undefined
  readonly #assigner: WriteBucketAssigner
  readonly #pipeline: WriterPipeline<Row>
  readonly #onClosed: () => void

  constructor(context: AppendWriterContext, writerOptions: AppendWriterOptions = {}) {
    const { info, options } = context
    if (info.hasPrimaryKey) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `Table ${info.tablePath.databaseName}.${info.tablePath.tableName} has a primary key: write it with an upsert writer`,
      )
    }
    this.#info = info
    this.#converter = new RowConverter(info.rowType)
    this.#partitionOf = info.isPartitioned ? partitionGetter(info.rowType, info.partitionKeys) : undefined
    this.#assigner = context.bucketAssigner
    this.#onClosed = () => context.onClosed?.(this)
    const pipelineContext = {
      schemaId: info.schemaId,
      options,
      format: new ArrowLogBatchFormat(info.rowType, context.compression),
      memory: context.memory,
      network: context.network,
    }
    this.#pipeline = new WriterPipeline(pipelineContext, writerOptions)
  }

  get tableInfo(): TableInfo {
    return this.#info
  }

  /** Bytes of rows this writer's connection holds unacknowledged. */
  get bufferedBytes(): number {
    return this.#pipeline.bufferedBytes
  }

  /**
   * Buffers one row (an array in column order or an object keyed by column name). Throws a
   * FlussError at once for a bad row (nothing is buffered). Returns undefined, or a Promise to
   * await when the write buffer is full (see the class comment).
   */
  append(row: RowInput): Promise<void> | undefined {
    this.#add(row)
    return this.#pipeline.roomWait
  }

  /**
   * Like `append`, but resolves with the row's bucket and offset once acknowledged (rejects if its
   * batch fails). Costs a promise per row; prefer `append` plus `flush` for bulk writes.
   */
  appendWithResult(row: RowInput): Promise<AppendResult> {
    return this.#pipeline.resultOf(this.#add(row))
  }

  /** Sends every buffered row now; resolves when all rows appended so far are acknowledged. */
  flush(): Promise<void> {
    return this.#pipeline.flush()
  }

  /** Flushes, then stops the writer; further appends throw. Rejects like `flush` on a failure. */
  close(): Promise<void> {
    return this.#pipeline.close(this.#onClosed)
  }

  /** Stops at once: rows not yet sent fail with `error`; answers still due are handled. */
  abort(error: FlussError): void {
    this.#pipeline.abort(error, this.#onClosed)
  }

  #add(input: RowInput): { batch: WriteBatch<Row>; index: number } {
    this.#pipeline.checkWritable()
    const row = this.#converter.toRow(input)
    const partitionName = this.#partitionOf?.(row)
    let bucket = this.#assigner.assign(row, partitionName)
    if (this.#assigner.abortIfBatchFull && !this.#pipeline.accumulator.hasOpenBatch(partitionName, bucket)) {
      this.#assigner.onNewBatch(bucket, partitionName)
      bucket = this.#assigner.assign(row, partitionName)
    }
    return this.#pipeline.add(row, partitionName, bucket)
  }
}
