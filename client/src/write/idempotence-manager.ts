import type { FlussError } from '@sluice/core/errors'
import type { BucketQueue } from './record-accumulator.js'
import type { WriteBatch } from './write-batch.js'

/** What to do with a batch the server answered with an error. */
export type ErrorDecision = 'retry' | 'fail' | 'success'

interface BucketSequences {
  /** The writer id the sequences below belong to. */
  writerId: number
  nextSequence: number
  lastAckedSequence: number
  /** Sent (or waiting to be re-sent) and not yet answered for good, by ascending sequence. */
  readonly unacked: WriteBatch[]
  /** Batches of this writer id may no longer be retried here: an earlier one failed for good. */
  fencedWriterId: number
}

/** Writer id of a batch written without idempotence. */
export const NO_WRITER_ID = -1

/**
 * Writer id and per-bucket batch sequences of an idempotent writer (Fluss's `IdempotenceManager`),
 * simplified but safe: never reorder, never duplicate.
 *
 * - Sequences are assigned when a batch is first sent, from 0 per bucket and writer id; a retry
 *   re-sends the same bytes, so the server can drop a duplicate.
 * - A retried batch is sent only when it is the oldest unacknowledged batch of its bucket, and new
 *   batches wait while `max-inflight-requests-per-bucket` are unacknowledged.
 * - When a batch fails for good (a non-retriable error, retries exhausted, OUT_OF_ORDER_SEQUENCE for
 *   the next expected batch, UNKNOWN_WRITER_ID) its bucket's sequence state is no longer known: the
 *   writer id is dropped (a new one is requested), later batches of that bucket under the old id
 *   are failed instead of retried, and the bucket restarts at sequence 0 under the new id once its
 *   old batches are all answered.
 */
export class IdempotenceManager {
  #writerId = NO_WRITER_ID
  readonly #buckets = new Map<string, BucketSequences>()

  constructor(
    readonly enabled: boolean,
    readonly maxInflightPerBucket: number,
  ) {}

  get writerId(): number {
    return this.#writerId
  }

  get hasWriterId(): boolean {
    return this.#writerId !== NO_WRITER_ID
  }

  setWriterId(writerId: number): void {
    this.#writerId = writerId
  }

  /** Whether the head batch of `queue` may be sent now. */
  canSend(queue: BucketQueue, head: WriteBatch): boolean {
    if (!this.enabled) return queue.onWire < this.maxInflightPerBucket
    if (!this.hasWriterId) return false
    const state = this.#state(queue)
    if (head.hasSequence) return state.unacked[0] === head
    if (state.unacked.length >= this.maxInflightPerBucket) return false
    return state.writerId === this.#writerId || state.unacked.length === 0
  }

  /** Whether a batch belongs to a writer id whose sequence state in its bucket was lost. */
  isFenced(queue: BucketQueue, batch: WriteBatch): boolean {
    return this.enabled && batch.hasSequence && batch.writerId === this.#state(queue).fencedWriterId
  }

  /** Gives a batch that is sent for the first time its writer id and sequence. */
  prepareSend(queue: BucketQueue, batch: WriteBatch): void {
    if (!this.enabled || batch.hasSequence) return
    const state = this.#state(queue)
    if (state.writerId !== this.#writerId) {
      state.writerId = this.#writerId
      state.nextSequence = 0
      state.lastAckedSequence = -1
    }
    batch.writerId = this.#writerId
    batch.batchSequence = state.nextSequence++
    state.unacked.push(batch)
  }

  /** Decides what an error answer means for a batch; `attemptsLeft` counts remaining retries. */
  onError(queue: BucketQueue, batch: WriteBatch, error: FlussError, attemptsLeft: number): ErrorDecision {
    if (error.is('DUPLICATE_SEQUENCE_EXCEPTION') && this.enabled) return 'success'
    if (!this.enabled) return error.retriable && attemptsLeft > 0 ? 'retry' : 'fail'
    const state = this.#state(queue)
    if (batch.writerId === state.fencedWriterId) return 'fail'
    if (attemptsLeft > 0 && this.#retriable(state, batch, error)) return 'retry'
    this.#fence(state, batch)
    return 'fail'
  }

  /** Records a batch as written. */
  onSuccess(queue: BucketQueue, batch: WriteBatch): void {
    if (!this.enabled || !batch.hasSequence) return
    const state = this.#state(queue)
    this.#remove(state, batch)
    if (batch.writerId === state.writerId)
      state.lastAckedSequence = Math.max(state.lastAckedSequence, batch.batchSequence)
  }

  /** Records a batch as failed for good (after `onError` said 'fail', or when aborted). */
  onFailure(queue: BucketQueue, batch: WriteBatch): void {
    if (!this.enabled || !batch.hasSequence) return
    this.#remove(this.#state(queue), batch)
  }

  /** The batch sequences a bucket has not had acknowledged yet (for tests and diagnostics). */
  unackedSequences(queue: BucketQueue): number[] {
    return this.#state(queue).unacked.map(b => b.batchSequence)
  }

  #retriable(state: BucketSequences, batch: WriteBatch, error: FlussError): boolean {
    if (error.is('OUT_OF_ORDER_SEQUENCE_EXCEPTION')) {
      // An earlier batch is still on its way: this one will fit once that one lands.
      return batch.writerId === state.writerId && batch.batchSequence !== state.lastAckedSequence + 1
    }
    if (error.is('UNKNOWN_WRITER_ID_EXCEPTION')) return false
    return error.retriable
  }

  #fence(state: BucketSequences, batch: WriteBatch): void {
    state.fencedWriterId = batch.writerId
    if (this.#writerId === batch.writerId) this.#writerId = NO_WRITER_ID
  }

  #remove(state: BucketSequences, batch: WriteBatch): void {
    const at = state.unacked.indexOf(batch)
    if (at >= 0) state.unacked.splice(at, 1)
  }

  #state(queue: BucketQueue): BucketSequences {
    let state = this.#buckets.get(queue.key)
    if (state === undefined) {
      state = {
        writerId: NO_WRITER_ID,
        nextSequence: 0,
        lastAckedSequence: -1,
        unacked: [],
        fencedWriterId: NO_WRITER_ID,
      }
      this.#buckets.set(queue.key, state)
    }
    return state
  }
}
