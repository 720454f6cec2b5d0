import { assert, type FlussError } from '@sluice/core/errors'
import type { BatchFormat, RecordsWriter } from './batch-format.js'

/** Where an acknowledged record landed. */
export interface WriteResult {
  readonly bucket: number
  /** Set for partitioned tables. */
  readonly partitionId?: number
  /**
   * Log offset the record reports (see the batch format): its own offset for appends, the bucket's
   * log end offset after its batch for upserts; -1 when the server reported the batch as an already
   * written duplicate.
   */
  readonly offset: number
}

/** Where an appended record landed: `offset` is the record's log offset. */
export type AppendResult = WriteResult

interface RecordWaiter {
  readonly index: number
  readonly resolve: (result: WriteResult) => void
  readonly reject: (error: FlussError) => void
}

/**
 * One batch of one bucket, from its first record to its acknowledgement. While open it encodes
 * records with its format's writer; closing turns them into the encoded records; the first send
 * frames them with the header carrying the writer id and batch sequence, and every retry re-sends
 * exactly those bytes.
 */
export class WriteBatch<R = unknown> {
  readonly createdAtMs: number
  recordCount = 0
  /** Bytes of writer memory this batch holds (tracked by the accumulator). */
  memoryBytes = 0
  writerId = -1
  batchSequence = -1
  /** Times the batch was sent. */
  attempts = 0
  /** Not sent again before this time (retry backoff). */
  retryAtMs = 0
  /** Set once the batch has been completed or failed. */
  done = false
  readonly #format: BatchFormat<R>
  #writer: RecordsWriter<R> | undefined
  #records: Buffer | undefined
  #bytes: Buffer | undefined
  #waiters: RecordWaiter[] | undefined

  constructor(
    readonly id: number,
    readonly partitionName: string | undefined,
    readonly bucket: number,
    format: BatchFormat<R>,
    nowMs: number,
  ) {
    this.#format = format
    this.#writer = format.newWriter()
    this.createdAtMs = nowMs
  }

  get isOpen(): boolean {
    return this.#writer !== undefined
  }

  get hasSequence(): boolean {
    return this.batchSequence >= 0
  }

  /** Whether the open batch takes `record` (the first record always fits). */
  hasRoomFor(record: R): boolean {
    return this.#writer !== undefined && (this.recordCount === 0 || this.#writer.hasRoomFor(record))
  }

  /** Whether the open batch takes no more records (a pre-encoded batch fills one alone). */
  get isFull(): boolean {
    return this.#writer?.isFull() ?? true
  }

  /** Appends a validated record; returns its (first) index in the batch. */
  append(record: R): number {
    const writer = this.#writer
    assert(writer !== undefined, 'append to a closed batch')
    const index = this.recordCount
    this.recordCount += writer.add(record)
    return index
  }

  /** Memory the open batch holds, or the encoded size once closed. */
  sizeInBytes(): number {
    if (this.#writer !== undefined) return this.#writer.sizeInBytes()
    return this.#bytes?.length ?? this.#records?.length ?? 0
  }

  /** Estimated size of the batch once encoded (compression included). */
  estimatedSizeInBytes(): number {
    return this.#writer?.estimatedSizeInBytes() ?? this.sizeInBytes()
  }

  /** Encodes the records and gives the writer back to the format for reuse. */
  close(): void {
    const writer = this.#writer
    assert(writer !== undefined, 'batch closed twice')
    this.#records = writer.finish()
    this.#writer = undefined
    this.#format.release(writer)
  }

  /** Drops an open batch's records without encoding them (the batch failed or stayed empty). */
  discard(): void {
    const writer = this.#writer
    if (writer === undefined) return
    this.#writer = undefined
    this.#format.release(writer)
  }

  /** The bytes to send; built on the first call with the writer state given then. */
  bytes(schemaId: number): Buffer {
    if (this.#bytes === undefined) {
      const records = this.#records
      assert(records !== undefined, 'a batch is closed before it is sent')
      this.#bytes = this.#format.frame(records, {
        schemaId,
        writerId: this.writerId,
        batchSequence: this.batchSequence,
        recordCount: this.recordCount,
      })
      this.#records = undefined
    }
    return this.#bytes
  }

  /** Promises a result for the record at `index` (only for the `...WithResult` calls). */
  waitFor(index: number): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.#waiters ??= []
      this.#waiters.push({ index, resolve, reject })
    })
  }

  complete(batchOffset: number, partitionId: number | undefined): void {
    this.done = true
    this.#release()
    for (const w of this.#waiters ?? []) {
      const offset = this.#format.recordOffset(batchOffset, w.index)
      w.resolve(
        partitionId === undefined
          ? { bucket: this.bucket, offset }
          : { bucket: this.bucket, partitionId, offset },
      )
    }
    this.#waiters = undefined
  }

  fail(error: FlussError): void {
    this.done = true
    this.#release()
    for (const w of this.#waiters ?? []) w.reject(error)
    this.#waiters = undefined
  }

  #release(): void {
    this.#bytes = undefined
    this.#records = undefined
  }
}
