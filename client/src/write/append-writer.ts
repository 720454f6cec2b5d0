import type { ArrowCompressionInfo } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { partitionGetter, type TableInfo } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { WriterOptions } from '../client-options.js'
import { RowConverter, type RowInput, schemaDefaults } from '../table/row-converter.js'
import { type ArrowAppendOptions, checkArrowAppendOptions, routeArrowBatch } from './arrow-append.js'
import {
  recompressValidatedBatch,
  sameRowType,
  ValidatedArrowBatch,
  validateArrowBatch,
  validateArrowStream,
} from './arrow-batch-input.js'
import { ArrowLogBatchFormat, type LogWriteRecord } from './batch-format.js'
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
 *
 * Pre-encoded Arrow data: `appendArrowBatch(message)` and `appendArrowStream(stream)` take Arrow
 * RecordBatches of the table's row type, validate them whole, and send each as one log batch as it
 * is (no row decoding or re-encoding) through the same buffer, idempotence state and sender as
 * rows; see `appendArrowBatch`.
 */
export class AppendWriter implements ClosableWriter {
  readonly #info: TableInfo
  readonly #compression: ArrowCompressionInfo
  readonly #converter: RowConverter
  readonly #partitionOf: ((row: Row) => string) | undefined
  readonly #assigner: WriteBucketAssigner
  readonly #pipeline: WriterPipeline<LogWriteRecord>
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
    this.#compression = context.compression
    this.#converter = new RowConverter(info.rowType, undefined, schemaDefaults(info.schema))
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

  /**
   * Appends one bare Arrow IPC RecordBatch message of the table's row type (what a Fluss ARROW log
   * batch carries: as `ArrowBatchWriter.finish()` makes it, or a RecordBatch message cut from an
   * Arrow IPC stream), and resolves once it is acknowledged. The whole message is validated first
   * (see `validateArrowBatch`); a message that does not fit the row type rejects with
   * CORRUPT_RECORD_EXCEPTION or INVALID_REQUEST and nothing is written.
   *
   * The message becomes one log batch as it is, body compression included (any codec Fluss reads),
   * unless `options.tableCompression` asks for the table's `table.log.arrow.compression.type`. It goes to
   * `options.bucket` or the bucket the writer's assigner picks; for a table with bucket keys, to the
   * bucket of its rows' keys (only the key columns are read). When a partitioned table or bucket
   * keys spread the rows over several buckets, the rows are decoded and appended like `append` ones:
   * then some of them may be written when the promise rejects. A full write buffer is waited for.
   */
  appendArrowBatch(message: Uint8Array, options: ArrowAppendOptions = {}): Promise<void> {
    return this.#appendArrow(() => [validateArrowBatch(message, this.#info.rowType, options)], options)
  }

  /**
   * Like `appendArrowBatch` for every RecordBatch of an Arrow IPC stream (Schema message, record
   * batches, end marker). The schema must have the table's columns in order, with their names and
   * the Arrow types Fluss writes for them (see `validateArrowStream`); every batch is validated
   * before any is written.
   */
  appendArrowStream(stream: Uint8Array, options: ArrowAppendOptions = {}): Promise<void> {
    return this.#appendArrow(() => validateArrowStream(stream, this.#info.rowType, options), options)
  }

  /**
   * Like `appendArrowBatch` for batches already validated (`validateArrowBatch`,
   * `validateArrowStream`) against this table's row type; INVALID_REQUEST for another row type.
   */
  appendArrowBatches(
    batches: readonly ValidatedArrowBatch[],
    options: ArrowAppendOptions = {},
  ): Promise<void> {
    return this.#appendArrow(() => {
      for (const batch of batches) {
        if (!(batch instanceof ValidatedArrowBatch) || !sameRowType(batch.rowType, this.#info.rowType)) {
          throw new FlussError('INVALID_REQUEST', 'The Arrow batch was validated against another row type')
        }
      }
      return batches
    }, options)
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

  async #appendArrow(read: () => readonly ValidatedArrowBatch[], options: ArrowAppendOptions): Promise<void> {
    this.#pipeline.checkOpen()
    checkArrowAppendOptions(this.#info, options)
    let inputs = read().filter(input => input.recordCount > 0)
    const routes = inputs.map(input => routeArrowBatch(this.#info, this.#assigner, input, options.bucket))
    if (options.tableCompression === true) {
      inputs = inputs.map((input, i) =>
        routes[i].whole ? recompressValidatedBatch(input, this.#compression, options) : input,
      )
    }
    const rowsOf = inputs.map((input, i) => (routes[i].whole ? [] : this.#decodeRows(input)))
    // Everything is validated: from here on batches are added.
    const outcomes: Promise<unknown>[] = []
    for (let i = 0; i < inputs.length; i++) {
      const route = routes[i]
      if (route.whole) {
        await this.#roomForRecord()
        outcomes.push(this.#addWhole(inputs[i], route.bucket))
        continue
      }
      let last: { batch: WriteBatch<LogWriteRecord>; index: number } | undefined
      for (const row of rowsOf[i]) {
        await this.#roomForRecord()
        const added = this.#addRow(row)
        if (last !== undefined && last.batch !== added.batch)
          outcomes.push(settled(last.batch.waitFor(last.index)))
        last = added
      }
      if (last !== undefined) outcomes.push(settled(last.batch.waitFor(last.index)))
      // The last batch stays open for more rows: send it now rather than after the batch timeout.
      this.#pipeline.sendBuffered()
    }
    for (const outcome of await Promise.all(outcomes)) if (outcome !== undefined) throw outcome
  }

  /** Adds a pre-encoded batch as a log batch of its own; resolves to its error, if any. */
  #addWhole(input: ValidatedArrowBatch, bucket: number | undefined): Promise<unknown> {
    const assigner = this.#assigner
    // Without bucket keys the assigner does not look at the row.
    const target = bucket ?? assigner.assign(NO_ROW, undefined)
    const added = this.#pipeline.add(input, undefined, target)
    // A sticky assigner moves on: the batch filled the bucket's batch by itself.
    if (assigner.abortIfBatchFull) assigner.onNewBatch(target, undefined)
    return settled(added.batch.waitFor(added.index))
  }

  /** Validated rows of an Arrow batch that cannot be sent whole. */
  #decodeRows(input: ValidatedArrowBatch): Row[] {
    const rows = new Array<Row>(input.reader.recordCount)
    for (let r = 0; r < rows.length; r++) rows[r] = this.#converter.toRow(input.reader.getRow(r))
    return rows
  }

  /** Waits while the write buffer is full (the Arrow appends await instead of throwing). */
  async #roomForRecord(): Promise<void> {
    for (;;) {
      this.#pipeline.checkOpen()
      const wait = this.#pipeline.roomWait
      if (wait === undefined || !this.#pipeline.accumulator.memory.isFull) return
      await wait
    }
  }

  #add(input: RowInput): { batch: WriteBatch<LogWriteRecord>; index: number } {
    this.#pipeline.checkWritable()
    return this.#addRow(this.#converter.toRow(input))
  }

  #addRow(row: Row): { batch: WriteBatch<LogWriteRecord>; index: number } {
    const partitionName = this.#partitionOf?.(row)
    let bucket = this.#assigner.assign(row, partitionName)
    if (this.#assigner.abortIfBatchFull && !this.#pipeline.accumulator.hasOpenBatch(partitionName, bucket)) {
      this.#assigner.onNewBatch(bucket, partitionName)
      bucket = this.#assigner.assign(row, partitionName)
    }
    return this.#pipeline.add(row, partitionName, bucket)
  }
}

const NO_ROW: Row = []

/** The error a batch failed with, or undefined once it is acknowledged (never a rejection). */
function settled(result: Promise<unknown>): Promise<unknown> {
  return result.then(
    () => undefined,
    (e: unknown) => e ?? new FlussError('UNKNOWN_SERVER_ERROR', 'The write failed'),
  )
}
