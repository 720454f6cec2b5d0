import type { ArrowCompressionInfo } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { partitionGetter, type TableInfo } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { WriterOptions } from '../client-options.js'
import { RowConverter, type RowInput } from '../table/row-converter.js'
import type { WriteBucketAssigner } from './bucket-assigner.js'
import { IdempotenceManager } from './idempotence-manager.js'
import { RecordAccumulator } from './record-accumulator.js'
import { Sender, type WriterNetwork } from './sender.js'
import type { AppendResult, WriteBatch } from './write-batch.js'
import type { WriterMemory } from './writer-memory.js'

/** A batch that failed for good, as reported to `onError`. */
export interface WriteFailure {
  readonly bucket: number
  readonly partitionName?: string
  readonly recordCount: number
}

/** Options of one append writer. */
export interface AppendWriterOptions {
  /**
   * Called once for every batch that fails for good (after retries), with the rows it held. For
   * callers that never flush; `flush()` also rejects with the first failure.
   */
  readonly onError?: (error: FlussError, failure: WriteFailure) => void
}

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
export class AppendWriter {
  readonly #info: TableInfo
  readonly #converter: RowConverter
  readonly #partitionOf: ((row: Row) => string) | undefined
  readonly #assigner: WriteBucketAssigner
  readonly #accumulator: RecordAccumulator
  readonly #sender: Sender
  readonly #onClosed: ((writer: AppendWriter) => void) | undefined
  #roomWait: Promise<void> | undefined
  #closing: Promise<void> | undefined

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
    this.#onClosed = context.onClosed
    const accumulatorOptions = {
      rowType: info.rowType,
      compression: context.compression,
      batchSizeBytes: options.batchSizeBytes,
      batchTimeoutMs: options.batchTimeoutMs,
    }
    this.#accumulator = new RecordAccumulator(accumulatorOptions, context.memory)
    const idempotence = new IdempotenceManager(options.idempotence, options.maxInflightPerBucket)
    const senderOptions = {
      acks: options.acks,
      retries: options.retries,
      requestMaxBytes: options.requestMaxBytes,
      requestTimeoutMs: options.requestTimeoutMs,
      schemaId: info.schemaId,
    }
    const onError = writerOptions.onError
    const onBatchFailed = (error: FlussError, batch: WriteBatch) => {
      const failure = { bucket: batch.bucket, recordCount: batch.recordCount }
      onError?.(
        error,
        batch.partitionName === undefined ? failure : { ...failure, partitionName: batch.partitionName },
      )
    }
    this.#sender = new Sender(this.#accumulator, context.network, idempotence, senderOptions, onBatchFailed)
  }

  get tableInfo(): TableInfo {
    return this.#info
  }

  /** Bytes of rows this writer's connection holds unacknowledged. */
  get bufferedBytes(): number {
    return this.#accumulator.memory.usedBytes
  }

  /**
   * Buffers one row (an array in column order or an object keyed by column name). Throws a
   * FlussError at once for a bad row (nothing is buffered). Returns undefined, or a Promise to
   * await when the write buffer is full (see the class comment).
   */
  append(row: RowInput): Promise<void> | undefined {
    this.#add(row)
    return this.#roomWait
  }

  /**
   * Like `append`, but resolves with the row's bucket and offset once acknowledged (rejects if its
   * batch fails). Costs a promise per row; prefer `append` plus `flush` for bulk writes.
   */
  appendWithResult(row: RowInput): Promise<AppendResult> {
    const { batch, index } = this.#add(row)
    const result = batch.waitFor(index)
    const room = this.#roomWait
    return room === undefined ? result : Promise.all([room, result]).then(([, r]) => r)
  }

  /** Sends every buffered row now; resolves when all rows appended so far are acknowledged. */
  flush(): Promise<void> {
    const upTo = this.#accumulator.beginFlush()
    this.#sender.wakeup()
    return this.#accumulator.flushed(upTo)
  }

  /** Flushes, then stops the writer; further appends throw. Rejects like `flush` on a failure. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#accumulator.beginClose()
      try {
        await this.flush()
      } finally {
        this.#sender.close()
        this.#onClosed?.(this)
      }
    })()
    return this.#closing
  }

  /** Stops at once: rows not yet sent fail with `error`; answers still due are handled. */
  abort(error: FlussError): void {
    this.#closing ??= Promise.resolve()
    this.#sender.abortQueued(error)
    this.#sender.close()
    this.#onClosed?.(this)
  }

  #add(input: RowInput): { batch: WriteBatch; index: number } {
    if (this.#closing !== undefined) throw new FlussError('INVALID_REQUEST', 'The writer is closed')
    const memory = this.#accumulator.memory
    if (this.#roomWait !== undefined && memory.isFull) {
      throw new FlussError(
        'RESOURCE_EXHAUSTED',
        'The write buffer is full: await the promise returned by the previous append before appending more',
      )
    }
    const row = this.#converter.toRow(input)
    const partitionName = this.#partitionOf?.(row)
    let bucket = this.#assigner.assign(row, partitionName)
    if (this.#assigner.abortIfBatchFull && !this.#accumulator.hasOpenBatch(partitionName, bucket)) {
      this.#assigner.onNewBatch(bucket, partitionName)
      bucket = this.#assigner.assign(row, partitionName)
    }
    const outcome = this.#accumulator.append(row, partitionName, bucket, Date.now())
    if (outcome.batchFull || outcome.newBatch || memory.isFull) this.#sender.wakeup()
    if (memory.isFull && this.#roomWait === undefined) {
      const wait = memory.waitForRoom().finally(() => {
        if (this.#roomWait === wait) this.#roomWait = undefined
      })
      this.#roomWait = wait
    }
    return outcome
  }
}
