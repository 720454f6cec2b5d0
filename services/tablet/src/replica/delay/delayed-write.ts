import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { Replica } from '../replica.js'
import { DelayedOperation } from './delayed-operation.js'

/** The outcome of appending one bucket of a produce request. */
export interface WriteResultForBucket {
  readonly tableBucket: TableBucket
  readonly error?: FlussError
  /** Offset of the first appended record. */
  readonly baseOffset?: number
  /** Offset after the last appended record: acks=all waits until the HW reaches it. */
  readonly writeEndOffset?: number
}

interface BucketStatus {
  result: WriteResultForBucket
  acksPending: boolean
  delayedError: FlussError | undefined
}

/**
 * An acks=all write waiting for the high watermark to pass every appended bucket's end offset
 * (Fluss's `DelayedWrite`). A bucket whose replica lost leadership completes with that error; on
 * timeout the still-pending buckets answer REQUEST_TIME_OUT. Buckets that already failed keep their
 * error.
 */
export class DelayedWrite extends DelayedOperation {
  readonly #statuses: BucketStatus[]

  constructor(
    delayMs: number,
    results: readonly WriteResultForBucket[],
    private readonly replicaOf: (bucket: TableBucket) => Replica,
    private readonly respond: (results: WriteResultForBucket[]) => void,
  ) {
    super(delayMs)
    this.#statuses = results.map(result => {
      const succeeded = result.error === undefined
      const delayedError = succeeded
        ? new FlussError(
            'REQUEST_TIME_OUT',
            `replication to the in-sync replicas timed out after ${delayMs} ms`,
          )
        : undefined
      return { result, acksPending: succeeded, delayedError }
    })
  }

  tryComplete(): boolean {
    let satisfied = true
    for (const status of this.#statuses) {
      if (!status.acksPending) continue
      let check: { done: boolean; error?: FlussError }
      try {
        check = this.replicaOf(status.result.tableBucket).checkEnoughReplicasReachOffset(
          status.result.writeEndOffset ?? 0,
        )
      } catch (e) {
        check = {
          done: true,
          error: e instanceof FlussError ? e : new FlussError('UNKNOWN_SERVER_ERROR', String(e)),
        }
      }
      if (check.done) {
        status.acksPending = false
        status.delayedError = check.error
      } else {
        satisfied = false
      }
    }
    return satisfied ? this.forceComplete() : false
  }

  protected onComplete(): void {
    this.respond(
      this.#statuses.map(s =>
        s.delayedError === undefined
          ? s.result
          : { tableBucket: s.result.tableBucket, error: s.delayedError },
      ),
    )
  }
}
