import type { FlussError } from '@sluice/core/errors'
import type { TableBucket, TablePath } from '@sluice/core/metadata'

/** A point lookup by primary key, or a prefix lookup by bucket key. */
export type LookupKind = 'LOOKUP' | 'PREFIX_LOOKUP'

/** One key waiting for its values. */
export interface LookupQuery {
  readonly kind: LookupKind
  readonly tablePath: TablePath
  readonly bucket: TableBucket
  /** The encoded key (primary key, or bucket-key prefix). */
  readonly key: Buffer
  /** With the stored values: at most one for LOOKUP, any number (key order) for PREFIX_LOOKUP. */
  readonly resolve: (values: Buffer[]) => void
  readonly reject: (error: FlussError) => void
  /** When the query was queued: its batching window ends `batchTimeoutMs` later. */
  readonly queuedAtMs: number
  retries: number
  /** Not sent again before this time (retry backoff). */
  retryAtMs: number
}

/**
 * The lookups waiting to be sent (Fluss's `LookupQueue`), bounded by `client.lookup.queue-size`.
 * New queries wait for a batching window: a drain hands out up to `client.lookup.max-batch-size`
 * queries once that many are waiting or the oldest has waited `client.lookup.batch-timeout`. Queries
 * put back for a retry (already admitted, so not counted against the bound twice) wait for their
 * backoff, then go out with the next drain.
 */
export class LookupQueue {
  #fresh: LookupQuery[] = []
  #retries: LookupQuery[] = []

  constructor(
    readonly capacity: number,
    readonly maxBatchSize: number,
    readonly batchTimeoutMs: number,
  ) {}

  get size(): number {
    return this.#fresh.length + this.#retries.length
  }

  /** Queues a new query; false when the queue is full. */
  offer(query: LookupQuery): boolean {
    if (this.size >= this.capacity) return false
    this.#fresh.push(query)
    return true
  }

  /** Queues a query again, to be sent once its `retryAtMs` has passed. */
  retry(query: LookupQuery): void {
    this.#retries.push(query)
  }

  /** Puts drained queries back at the head, ready at once (no request slot was free). */
  putBack(queries: readonly LookupQuery[]): void {
    this.#retries.unshift(...queries)
  }

  /**
   * The queries to send now (empty while the window is open), and the earliest time the answer may
   * change (Infinity when nothing waits).
   */
  drain(nowMs: number): { queries: LookupQuery[]; nextCheckMs: number } {
    if (this.#retries.length === 0) return this.#drainFresh(nowMs)
    const due = this.#retries.filter(q => q.retryAtMs <= nowMs)
    const oldest = this.#fresh[0]
    const windowClosed = oldest !== undefined && oldest.queuedAtMs + this.batchTimeoutMs <= nowMs
    const queries: LookupQuery[] = []
    if (due.length > 0 || windowClosed || this.#fresh.length >= this.maxBatchSize) {
      for (const q of due) {
        if (queries.length >= this.maxBatchSize) break
        queries.push(q)
      }
      const taken = new Set(queries)
      this.#retries = this.#retries.filter(q => !taken.has(q))
      const fromFresh = Math.max(0, this.maxBatchSize - queries.length)
      for (const q of this.#fresh.splice(0, fromFresh)) queries.push(q)
    }
    return { queries, nextCheckMs: this.#nextCheckMs(nowMs) }
  }

  /** `drain` when no query waits for a retry: the fresh queries, all at once when they fit a batch. */
  #drainFresh(nowMs: number): { queries: LookupQuery[]; nextCheckMs: number } {
    const fresh = this.#fresh
    const oldest = fresh[0]
    let queries: LookupQuery[] = []
    if (
      oldest !== undefined &&
      (oldest.queuedAtMs + this.batchTimeoutMs <= nowMs || fresh.length >= this.maxBatchSize)
    ) {
      if (fresh.length <= this.maxBatchSize) {
        queries = fresh
        this.#fresh = []
      } else {
        queries = fresh.splice(0, this.maxBatchSize)
      }
    }
    return { queries, nextCheckMs: this.#nextCheckMs(nowMs) }
  }

  /** Removes and returns every query (`filter` selects which). */
  removeAll(filter: (query: LookupQuery) => boolean = () => true): LookupQuery[] {
    const removed = [...this.#retries, ...this.#fresh].filter(filter)
    const gone = new Set(removed)
    this.#retries = this.#retries.filter(q => !gone.has(q))
    this.#fresh = this.#fresh.filter(q => !gone.has(q))
    return removed
  }

  #nextCheckMs(nowMs: number): number {
    let next = Number.POSITIVE_INFINITY
    for (const q of this.#retries) next = Math.min(next, Math.max(q.retryAtMs, nowMs))
    const oldest = this.#fresh[0]
    if (oldest !== undefined) {
      next = Math.min(
        next,
        this.#fresh.length >= this.maxBatchSize ? nowMs : oldest.queuedAtMs + this.batchTimeoutMs,
      )
    }
    return next
  }
}
