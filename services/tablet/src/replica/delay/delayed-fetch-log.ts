import {
  type FetchLogResultForBucket,
  type FetchParams,
  type FetchReqInfo,
  fetchedBytes,
} from '../fetch-types.js'
import { DelayedOperation } from './delayed-operation.js'

/** What a parked fetch needs from the replica manager. */
export interface DelayedFetchContext {
  /** Reads every bucket again (the same code path as an immediate fetch). */
  read(params: FetchParams, reqs: readonly FetchReqInfo[]): Promise<FetchLogResultForBucket[]>
  /** Cheap check: may a bucket have new data, or did its leadership change, since the fetch offset? */
  mayHaveProgress(params: FetchParams, req: FetchReqInfo): boolean
}

/**
 * A long-poll FETCH_LOG parked until `minBytes` can be returned (Fluss's `DelayedFetchLog`). Each
 * wake-up of a watched bucket that shows progress re-reads the buckets; when the bytes suffice (or
 * a bucket failed) that read is the answer. On timeout, whatever is available is returned.
 * Reads of one operation never overlap: a wake-up during a read triggers one more read after it.
 */
export class DelayedFetchLog extends DelayedOperation {
  #reading = false
  #recheck = false
  #outcome: FetchLogResultForBucket[] | Error | undefined

  constructor(
    private readonly params: FetchParams,
    private readonly reqs: readonly FetchReqInfo[],
    private readonly context: DelayedFetchContext,
    private readonly respond: (results: FetchLogResultForBucket[] | Error) => void,
  ) {
    super(params.maxWaitMs)
  }

  tryComplete(): boolean {
    if (this.isCompleted) return true
    if (!this.reqs.some(req => this.context.mayHaveProgress(this.params, req))) return false
    if (this.#reading) {
      this.#recheck = true
      return false
    }
    this.#reading = true
    this.context.read(this.params, this.reqs).then(
      results => {
        this.#reading = false
        if (this.isCompleted) return
        if (fetchedBytes(results) >= this.params.minBytes || results.some(r => r.error !== undefined)) {
          this.#outcome = results
          this.forceComplete()
        } else if (this.#recheck) {
          this.#recheck = false
          this.tryComplete()
        }
      },
      (e: Error) => {
        this.#reading = false
        if (this.isCompleted) return
        this.#outcome = e
        this.forceComplete()
      },
    )
    return false
  }

  protected onComplete(): void {
    const outcome = this.#outcome
    if (outcome !== undefined) {
      this.respond(outcome)
      return
    }
    this.context.read(this.params, this.reqs).then(
      results => this.respond(results),
      (e: Error) => this.respond(e),
    )
  }
}
