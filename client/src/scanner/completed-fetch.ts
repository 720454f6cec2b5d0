import { ArrowBatchReader } from '@sluice/core/arrow'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { ChangeType, type LogRecordBatch, MemoryLogRecords } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { LogBatchDecoding } from './batch-decoding.js'
import type { ScanRecord } from './scan-records.js'

/** How fetched batches are turned into records. */
export interface BatchDecoderOptions {
  /** The row type each batch's Arrow payload has (by its schema id), and the mapping to the reader's rows. */
  readonly decoding: Pick<LogBatchDecoding, 'plan'>
  /** Whether the server projected the batches (their CRC then no longer matches). */
  readonly projected: boolean
  /** Output position → position in the read row, when the user's column order differs. */
  readonly reorder: readonly number[] | undefined
  readonly checkCrc: boolean
}

/** Decodes one log batch into records at or after `fromOffset`. */
export function decodeBatch(
  batch: LogRecordBatch,
  fromOffset: number,
  options: BatchDecoderOptions,
): ScanRecord[] {
  if (options.checkCrc && !options.projected) batch.validate()
  const count = batch.recordCount
  if (count === 0) return []
  const plan = options.decoding.plan(batch.schemaId)
  const reader = new ArrowBatchReader(batch.arrowPayload(), plan.readRowType)
  if (reader.recordCount !== count) {
    throw new FlussError(
      'CORRUPT_RECORD_EXCEPTION',
      `Batch at offset ${batch.baseOffset} declares ${count} records, its Arrow payload has ${reader.recordCount}`,
    )
  }
  const changeTypes = batch.changeTypes()
  const base = batch.baseOffset
  const timestamp = batch.commitTimestamp
  const reorder = options.reorder
  const mapping = plan.mapping
  const records: ScanRecord[] = []
  for (let i = Math.max(0, fromOffset - base); i < count; i++) {
    const read = mapping.map(reader.getRow(i))
    const row: Row = reorder === undefined ? read : reorder.map(p => read[p])
    const changeType = changeTypes === null ? ChangeType.APPEND_ONLY : (changeTypes[i] as ChangeType)
    records.push({ offset: base + i, timestamp, changeType, row })
  }
  return records
}

/**
 * The answer of one fetch for one bucket, consumed by polls (Fluss's `CompletedFetch`): either an
 * error to surface, or log batches decoded lazily, batch by batch, as records are taken.
 */
export class CompletedFetch {
  #nextFetchOffset: number
  #batches: Iterator<LogRecordBatch> | undefined
  #pending: ScanRecord[] = []
  #error: FlussError | undefined
  #consumed = false

  constructor(
    readonly tableBucket: TableBucket,
    readonly fetchOffset: number,
    readonly highWatermark: number,
    records: Uint8Array | null,
    error: FlussError | undefined,
    readonly decoder: BatchDecoderOptions,
  ) {
    this.#nextFetchOffset = fetchOffset
    this.#error = error
    this.#batches =
      records === null || records.length === 0 ? undefined : new MemoryLogRecords(records).batches()
  }

  /** The offset the bucket's next fetch starts at once everything taken so far is consumed. */
  get nextFetchOffset(): number {
    return this.#nextFetchOffset
  }

  get error(): FlussError | undefined {
    return this.#error
  }

  get isConsumed(): boolean {
    return this.#consumed
  }

  /** True when the next thing this fetch yields is its error (no records are left before it). */
  get failed(): boolean {
    return this.#error !== undefined && this.#pending.length === 0
  }

  /** Takes up to `max` records, stopping before an error (see `failed`). */
  take(max: number): ScanRecord[] {
    const out: ScanRecord[] = []
    while (out.length < max && !this.#consumed) {
      if (this.#pending.length > 0) {
        const taken = this.#pending.splice(0, max - out.length)
        for (const r of taken) out.push(r)
        this.#nextFetchOffset = taken[taken.length - 1].offset + 1
      } else if (this.#error !== undefined) {
        break
      } else {
        this.#decodeNext()
      }
    }
    return out
  }

  /** Gives up on the rest (the bucket was unsubscribed or moved). */
  drain(): void {
    this.#consumed = true
    this.#pending = []
    this.#batches = undefined
  }

  #decodeNext(): void {
    let batch: LogRecordBatch
    try {
      const next = this.#batches?.next()
      if (next === undefined || next.done) {
        this.#consumed = true
        return
      }
      batch = next.value
    } catch (e) {
      // A batch cut off at the end of a size-limited answer is fetched again next time.
      if (this.#nextFetchOffset > this.fetchOffset) this.#consumed = true
      else this.#setError(e)
      return
    }
    try {
      if (batch.nextOffset <= this.#nextFetchOffset) return
      this.#pending = decodeBatch(batch, this.#nextFetchOffset, this.decoder)
      if (this.#pending.length === 0) this.#nextFetchOffset = batch.nextOffset
    } catch (e) {
      this.#setError(e)
    }
  }

  #setError(e: unknown): void {
    const error = toFlussError(e)
    this.#batches = undefined
    this.#error = new FlussError(
      error.spec,
      `Fetch of ${describe(this.tableBucket)} at offset ${this.#nextFetchOffset}: ${error.message}`,
      { cause: error },
    )
  }
}

function describe(tb: TableBucket): string {
  return tb.partitionId === undefined
    ? `bucket ${tb.bucket}`
    : `partition ${tb.partitionId} bucket ${tb.bucket}`
}
