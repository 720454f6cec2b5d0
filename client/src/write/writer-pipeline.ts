import { FlussError } from '@sluice/core/errors'
import type { WriterOptions } from '../client-options.js'
import type { BatchFormat } from './batch-format.js'
import { IdempotenceManager } from './idempotence-manager.js'
import { RecordAccumulator } from './record-accumulator.js'
import { Sender, type WriterNetwork } from './sender.js'
import type { WriteBatch, WriteResult } from './write-batch.js'
import type { WriterMemory } from './writer-memory.js'

/** A batch that failed for good, as reported to `onError`. */
export interface WriteFailure {
  readonly bucket: number
  readonly partitionName?: string
  readonly recordCount: number
}

/** Options of one table writer (append or upsert). */
export interface TableWriterOptions {
  /**
   * Called once for every batch that fails for good (after retries), with the rows it held. For
   * callers that never flush; `flush()` also rejects with the first failure.
   */
  readonly onError?: (error: FlussError, failure: WriteFailure) => void
}

/** A writer the connection flushes and closes when it closes. */
export interface ClosableWriter {
  close(): Promise<void>
  abort(error: FlussError): void
}

/** What a pipeline is built from. */
export interface WriterPipelineContext<R> {
  readonly schemaId: number
  readonly options: WriterOptions
  readonly format: BatchFormat<R>
  readonly memory: WriterMemory
  readonly network: WriterNetwork
}

/**
 * The machinery behind every table writer (Fluss's `WriterClient`): validated records go into the
 * accumulator, the sender moves ready batches to the leaders, and the shared write buffer applies
 * backpressure. `add` returns nothing per record; a full buffer yields one promise to await (see
 * `roomWait`), and adding again while it is pending throws RESOURCE_EXHAUSTED.
 */
export class WriterPipeline<R> {
  readonly accumulator: RecordAccumulator<R>
  readonly #sender: Sender
  #roomWait: Promise<void> | undefined
  #closing: Promise<void> | undefined

  constructor(ctx: WriterPipelineContext<R>, writerOptions: TableWriterOptions) {
    const { options } = ctx
    const accumulatorOptions = {
      format: ctx.format,
      batchSizeBytes: options.batchSizeBytes,
      batchTimeoutMs: options.batchTimeoutMs,
    }
    this.accumulator = new RecordAccumulator(accumulatorOptions, ctx.memory)
    const idempotence = new IdempotenceManager(options.idempotence, options.maxInflightPerBucket)
    const senderOptions = {
      acks: options.acks,
      retries: options.retries,
      requestMaxBytes: options.requestMaxBytes,
      requestTimeoutMs: options.requestTimeoutMs,
      schemaId: ctx.schemaId,
    }
    const onError = writerOptions.onError
    const onBatchFailed = (error: FlussError, batch: WriteBatch<unknown>) => {
      const failure = { bucket: batch.bucket, recordCount: batch.recordCount }
      onError?.(
        error,
        batch.partitionName === undefined ? failure : { ...failure, partitionName: batch.partitionName },
      )
    }
    this.#sender = new Sender(this.accumulator, ctx.network, idempotence, senderOptions, onBatchFailed)
  }

  /** Bytes of records the connection's writers hold unacknowledged. */
  get bufferedBytes(): number {
    return this.accumulator.memory.usedBytes
  }

  /** Pending while the write buffer is full (undefined when there is room). */
  get roomWait(): Promise<void> | undefined {
    return this.#roomWait
  }

  get isClosed(): boolean {
    return this.#closing !== undefined
  }

  /** Throws INVALID_REQUEST once the writer is closing or closed. */
  checkOpen(): void {
    if (this.#closing !== undefined) throw new FlussError('INVALID_REQUEST', 'The writer is closed')
  }

  /** Throws unless a record may be added now (open, and the caller honoured the last room wait). */
  checkWritable(): void {
    this.checkOpen()
    if (this.#roomWait !== undefined && this.accumulator.memory.isFull) {
      throw new FlussError(
        'RESOURCE_EXHAUSTED',
        'The write buffer is full: await the promise returned by the previous write before writing more',
      )
    }
  }

  /** Buffers a validated record for a bucket; call `checkWritable` first. */
  add(record: R, partitionName: string | undefined, bucket: number): { batch: WriteBatch<R>; index: number } {
    const memory = this.accumulator.memory
    const outcome = this.accumulator.append(record, partitionName, bucket, Date.now())
    if (outcome.batchFull || outcome.newBatch || memory.isFull) this.#sender.wakeup()
    if (memory.isFull && this.#roomWait === undefined) {
      const wait = memory.waitForRoom().finally(() => {
        if (this.#roomWait === wait) this.#roomWait = undefined
      })
      this.#roomWait = wait
    }
    return outcome
  }

  /** The result of one record, once the room wait (if any) is over too. */
  resultOf(added: { batch: WriteBatch<R>; index: number }): Promise<WriteResult> {
    const result = added.batch.waitFor(added.index)
    const room = this.#roomWait
    return room === undefined ? result : Promise.all([room, result]).then(([, r]) => r)
  }

  /** Makes every batch created so far ready to send now, without waiting for the outcome. */
  sendBuffered(): void {
    this.accumulator.beginFlush()
    this.#sender.wakeup()
  }

  /** Sends every buffered record now; resolves when all records added so far are acknowledged. */
  flush(): Promise<void> {
    const upTo = this.accumulator.beginFlush()
    this.#sender.wakeup()
    return this.accumulator.flushed(upTo)
  }

  /** Flushes, then stops; `onClosed` runs once either way. Rejects like `flush` on a failure. */
  close(onClosed: () => void): Promise<void> {
    this.#closing ??= (async () => {
      this.accumulator.beginClose()
      try {
        await this.flush()
      } finally {
        this.#sender.close()
        onClosed()
      }
    })()
    return this.#closing
  }

  /** Stops at once: records not yet sent fail with `error`; answers still due are handled. */
  abort(error: FlussError, onClosed: () => void): void {
    this.#closing ??= Promise.resolve()
    this.#sender.abortQueued(error)
    this.#sender.close()
    onClosed()
  }
}
