import type { ValidatedArrowBatch } from '@sluice/client'
import type { Row } from '@sluice/core'
import { FlussError, isFlussError } from '@sluice/core/errors'
import type { RowFailure, WriteResult } from './gateway-backend.js'

/** What `writeRows` needs of an SDK writer (append or upsert). */
export interface RowSink {
  /** Buffers one row; the promise settles when the cluster acknowledges (or fails) it. */
  write(row: Row): Promise<unknown>
  /** Sends everything buffered now. */
  flush(): Promise<void>
}

/**
 * Writes rows through a (shared) SDK writer and reports each row's outcome. Every row's promise is
 * settled into `undefined` or its error at once, so no rejection is ever unhandled. When the
 * writer's buffer is full (RESOURCE_EXHAUSTED), the loop waits for the last row before writing
 * more. Rows not written because the deadline passed fail with REQUEST_TIME_OUT.
 *
 * The rows are handed over by a function that ends once the writer has taken them all (it encodes
 * them at once), so nothing here holds them while the acknowledgements are awaited: a request's
 * rows can be collected meanwhile instead of surviving garbage collections.
 */
export function writeRows(sink: RowSink, rows: readonly Row[], signal: AbortSignal): Promise<WriteResult> {
  return handOver(sink, rows, signal).then(collect)
}

/** Gives every row to the writer; resolves with their outcomes (not yet settled) once all are taken. */
async function handOver(
  sink: RowSink,
  rows: readonly Row[],
  signal: AbortSignal,
): Promise<Promise<unknown>[]> {
  const outcomes: Promise<unknown>[] = []
  for (let i = 0; i < rows.length; i++) {
    if (signal.aborted) {
      const error = new FlussError(
        'REQUEST_TIME_OUT',
        'The request deadline passed before this row was sent.',
      )
      for (; i < rows.length; i++) outcomes.push(Promise.resolve(error))
      break
    }
    try {
      outcomes.push(sink.write(rows[i]).then(settledOk, settledError))
    } catch (e) {
      if (isFlussError(e, 'RESOURCE_EXHAUSTED') && outcomes.length > 0) {
        await outcomes[outcomes.length - 1]
        i--
        continue
      }
      outcomes.push(Promise.resolve(e))
    }
  }
  sink.flush().catch(() => {})
  return outcomes
}

async function collect(outcomes: readonly Promise<unknown>[]): Promise<WriteResult> {
  const settled = await Promise.all(outcomes)
  const failures: RowFailure[] = []
  settled.forEach((error, index) => {
    if (error !== undefined) failures.push({ index, error })
  })
  return { failures }
}

const settledOk = (): undefined => undefined
const settledError = (e: unknown): unknown => e ?? new Error('write failed')

/** What `writeArrowBatches` needs of an SDK append writer. */
export interface ArrowBatchSink {
  /** Appends validated batches as they are; settles when they are acknowledged (or fail). */
  appendArrowBatches(batches: readonly ValidatedArrowBatch[]): Promise<void>
}

/**
 * Appends validated Arrow batches, each as one log batch, and reports every row of a failed batch
 * (row indexes count the batches' rows in order). Batches not started because the deadline passed
 * fail with REQUEST_TIME_OUT.
 */
export async function writeArrowBatches(
  sink: ArrowBatchSink,
  batches: readonly ValidatedArrowBatch[],
  signal: AbortSignal,
): Promise<WriteResult> {
  const outcomes: Promise<unknown>[] = []
  for (const batch of batches) {
    if (signal.aborted) {
      outcomes.push(
        Promise.resolve(
          new FlussError('REQUEST_TIME_OUT', 'The request deadline passed before this batch was sent.'),
        ),
      )
      continue
    }
    let outcome: Promise<unknown>
    try {
      outcome = sink.appendArrowBatches([batch]).then(settledOk, settledError)
    } catch (e) {
      outcome = Promise.resolve(e)
    }
    outcomes.push(outcome)
  }
  const settled = await Promise.all(outcomes)
  const failures: RowFailure[] = []
  let first = 0
  batches.forEach((batch, b) => {
    const error = settled[b]
    if (error !== undefined)
      for (let i = 0; i < batch.recordCount; i++) failures.push({ index: first + i, error })
    first += batch.recordCount
  })
  return { failures }
}
