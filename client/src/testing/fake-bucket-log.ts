import { ArrowBatchReader, projectRecordBatch } from '@sluice/core/arrow'
import { FlussError, toFlussError } from '@sluice/core/errors'
import {
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  type LogRecordBatch,
  MemoryLogRecords,
  NO_WRITER_ID,
} from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'

interface StoredBatch {
  readonly baseOffset: number
  readonly nextOffset: number
  readonly commitTimestamp: number
  readonly bytes: Buffer
  readonly batch: LogRecordBatch
}

interface WriterState {
  lastSequence: number
  /** The last few batches, to answer a duplicate with its original offset. */
  readonly recent: { readonly sequence: number; readonly baseOffset: number }[]
}

/** Batches a writer's duplicates are recognised against (Fluss keeps 5). */
const RECENT_BATCHES = 5

/**
 * The log of one bucket in a fake tablet server, for client tests: stores produced batches
 * verbatim (offset and commit time patched), deduplicates idempotent writers by batch sequence,
 * serves fetches by whole batches, optionally projected, and wakes long polls on append.
 */
export class FakeBucketLog {
  readonly batches: StoredBatch[] = []
  logStartOffset = 0
  endOffset = 0
  /** Offsets below this count as tiered to remote storage (see FakeClusterState.remoteRead). */
  tieredBelowOffset = 0
  readonly #writers = new Map<number, WriterState>()
  readonly #waiters = new Set<() => void>()

  /** Appends the batches of one produce request; returns the base offset of the first. */
  append(records: Uint8Array, nowMs: number): number {
    const batches = new MemoryLogRecords(Buffer.from(records)).validateAll()
    let firstOffset = -1
    for (const batch of batches) {
      const offset = this.#appendOne(batch, nowMs)
      if (firstOffset < 0) firstOffset = offset
    }
    for (const wake of this.#waiters) wake()
    this.#waiters.clear()
    return firstOffset
  }

  #appendOne(batch: LogRecordBatch, nowMs: number): number {
    const writerId = batch.writerId
    if (writerId !== NO_WRITER_ID) {
      const state = this.#writers.get(writerId)
      const duplicate = state?.recent.find(r => r.sequence === batch.batchSequence)
      if (duplicate !== undefined) return duplicate.baseOffset
      const expected = state === undefined ? 0 : state.lastSequence + 1
      if (batch.batchSequence !== expected) {
        throw new FlussError(
          'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
          `Writer ${writerId}: expected batch sequence ${expected}, got ${batch.batchSequence}`,
        )
      }
    }
    const baseOffset = this.endOffset
    batch.setBaseOffset(baseOffset)
    batch.setCommitTimestamp(nowMs)
    const stored = {
      baseOffset,
      nextOffset: batch.nextOffset,
      commitTimestamp: nowMs,
      bytes: batch.bytes(),
      batch,
    }
    this.batches.push(stored)
    this.endOffset = stored.nextOffset
    if (writerId !== NO_WRITER_ID) {
      const state = this.#writers.get(writerId) ?? { lastSequence: -1, recent: [] }
      state.lastSequence = batch.batchSequence
      state.recent.push({ sequence: batch.batchSequence, baseOffset })
      if (state.recent.length > RECENT_BATCHES) state.recent.shift()
      this.#writers.set(writerId, state)
    }
    return baseOffset
  }

  /**
   * Whole batches from the one holding `fetchOffset`, up to `maxBytes` (at least one batch). With a
   * projection, each batch's Arrow payload is cut to the projected columns (its CRC goes stale).
   */
  read(
    fetchOffset: number,
    maxBytes: number,
    projection?: { rowType: RowType; fields: readonly number[] },
  ): Buffer {
    if (fetchOffset < this.logStartOffset || fetchOffset > this.endOffset) {
      throw new FlussError(
        'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
        `Offset ${fetchOffset} is outside [${this.logStartOffset}, ${this.endOffset}]`,
      )
    }
    const out: Buffer[] = []
    let size = 0
    for (const stored of this.batches) {
      if (stored.nextOffset <= fetchOffset) continue
      const bytes =
        projection === undefined
          ? stored.bytes
          : projectBatch(stored.batch, projection.rowType, projection.fields)
      if (out.length > 0 && size + bytes.length > maxBytes) break
      out.push(bytes)
      size += bytes.length
    }
    return Buffer.concat(out)
  }

  /** Whole batches, oldest first, holding at least the last `limit` records (LIMIT_SCAN of a log table). */
  tail(limit: number): Buffer {
    const out: Buffer[] = []
    let records = 0
    for (let i = this.batches.length - 1; i >= 0 && records < limit; i--) {
      const stored = this.batches[i]
      if (stored.batch.recordCount === 0) continue
      out.unshift(stored.bytes)
      records += stored.batch.recordCount
    }
    return Buffer.concat(out)
  }

  /** Every stored row, decoded with `rowType` (for assertions). */
  rows(rowType: RowType): Row[] {
    return this.batches.flatMap(b =>
      b.batch.recordCount === 0 ? [] : new ArrowBatchReader(b.batch.arrowPayload(), rowType).toRows(),
    )
  }

  /** The first offset whose batch was committed at or after `timestampMs` (the end when none). */
  offsetForTimestamp(timestampMs: number): number {
    return this.batches.find(b => b.commitTimestamp >= timestampMs)?.baseOffset ?? this.endOffset
  }

  /** Drops everything before `offset` (as retention would). */
  truncateBefore(offset: number): void {
    while (this.batches.length > 0 && this.batches[0].nextOffset <= offset) this.batches.shift()
    this.logStartOffset = this.batches[0]?.baseOffset ?? this.endOffset
  }

  /** Resolves at the next append, after `maxWaitMs`, or when `signal` aborts. */
  waitForAppend(maxWaitMs: number, signal: AbortSignal): Promise<void> {
    return new Promise(resolve => {
      const done = () => {
        clearTimeout(timer)
        this.#waiters.delete(done)
        signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, maxWaitMs)
      signal.addEventListener('abort', done)
      this.#waiters.add(done)
    })
  }
}

function projectBatch(batch: LogRecordBatch, rowType: RowType, fields: readonly number[]): Buffer {
  // An empty batch (a PK write that changed nothing) has no Arrow payload to cut.
  if (batch.recordCount === 0) return batch.bytes()
  try {
    const headerSize = batch.layout.headerSize
    const vector = batch.appendOnly ? 0 : batch.recordCount
    const payload = projectRecordBatch(batch.arrowPayload(), rowType, fields)
    const bytes = Buffer.concat([batch.bytes().subarray(0, headerSize + vector), payload])
    bytes.writeInt32LE(bytes.length - LOG_OVERHEAD, LENGTH_OFFSET)
    return bytes
  } catch (e) {
    throw toFlussError(e)
  }
}
