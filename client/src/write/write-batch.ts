import type { ArrowBatchWriter } from '@sluice/core/arrow'
import { assert, type FlussError } from '@sluice/core/errors'
import { buildLogBatch } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'

/** Where an acknowledged record landed. */
export interface AppendResult {
  readonly bucket: number
  /** Set for partitioned tables. */
  readonly partitionId?: number
  /** Log offset of the record; -1 when the server reported the batch as an already written duplicate. */
  readonly offset: number
}

interface RecordWaiter {
  readonly index: number
  readonly resolve: (result: AppendResult) => void
  readonly reject: (error: FlussError) => void
}

/**
 * One log batch of one bucket, from its first row to its acknowledgement. While open it encodes
 * rows into an Arrow column writer; closing turns them into the Arrow RecordBatch payload; the
 * first send wraps the payload in a V0 batch header carrying the writer id and batch sequence,
 * and every retry re-sends exactly those bytes.
 */
export class WriteBatch {
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
  #arrow: ArrowBatchWriter | undefined
  #payload: Uint8Array | undefined
  #bytes: Buffer | undefined
  #waiters: RecordWaiter[] | undefined

  constructor(
    readonly id: number,
    readonly partitionName: string | undefined,
    readonly bucket: number,
    arrow: ArrowBatchWriter,
    nowMs: number,
  ) {
    this.#arrow = arrow
    this.createdAtMs = nowMs
  }

  get isOpen(): boolean {
    return this.#arrow !== undefined
  }

  get hasSequence(): boolean {
    return this.batchSequence >= 0
  }

  /** Appends a validated row; returns the record's index in the batch. */
  append(row: Row): number {
    const arrow = this.#arrow
    assert(arrow !== undefined, 'append to a closed batch')
    arrow.addRow(row)
    return this.recordCount++
  }

  /** Memory the open batch's column buffers hold, or the encoded size once closed. */
  sizeInBytes(): number {
    if (this.#arrow !== undefined) return this.#arrow.uncompressedSizeInBytes()
    return this.#bytes?.length ?? this.#payload?.length ?? 0
  }

  /** Estimated size of the batch once encoded (compression included). */
  estimatedSizeInBytes(): number {
    return this.#arrow?.estimatedSizeInBytes() ?? this.sizeInBytes()
  }

  /** Encodes the rows; returns the column writer so it can be reused for another batch. */
  close(): ArrowBatchWriter {
    const arrow = this.#arrow
    assert(arrow !== undefined, 'batch closed twice')
    this.#payload = arrow.finish()
    this.#arrow = undefined
    return arrow
  }

  /** The bytes to send; built on the first call with the writer state given then. */
  bytes(schemaId: number): Buffer {
    if (this.#bytes === undefined) {
      const payload = this.#payload
      assert(payload !== undefined, 'a batch is closed before it is sent')
      this.#bytes = buildLogBatch({
        schemaId,
        appendOnly: true,
        writerId: this.writerId,
        batchSequence: this.batchSequence,
        recordCount: this.recordCount,
        records: payload,
      })
      this.#payload = undefined
    }
    return this.#bytes
  }

  /** Promises a result for the record at `index` (only for `appendWithResult`). */
  waitFor(index: number): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.#waiters ??= []
      this.#waiters.push({ index, resolve, reject })
    })
  }

  complete(baseOffset: number, partitionId: number | undefined): void {
    this.done = true
    this.#release()
    for (const w of this.#waiters ?? []) {
      const offset = baseOffset < 0 ? -1 : baseOffset + w.index
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
    this.#payload = undefined
  }
}
