import { isFlussError } from '@sluice/core/errors'
import type { PendingIsrState } from './isr-state.js'
import type { ReplicaWarn } from './replica-hooks.js'
import type { LeaderIsr } from './replica-isr.js'
import type { IsrWriter } from './replica-types.js'

/** The replica state an ISR write is based on. */
export interface IsrWriteSubject {
  readonly tableBucket: { readonly tableId: number; readonly partitionId?: number; readonly bucket: number }
  readonly name: string
  readonly localServerId: number
  readonly leaderEpoch: number
  readonly bucketEpoch: number
  readonly isLeader: boolean
}

export interface IsrWritesOptions {
  readonly writer: IsrWriter
  readonly retryBackoffMs: number
  readonly warn: ReplicaWarn
  /** The change (or the stored ISR adopted instead) is committed at this bucket epoch. */
  readonly onCommitted: (bucketEpoch: number) => void
  /** The stored bucket names another leader or a newer epoch. */
  readonly onDeposed: (storedLeader: number | null) => void
  /** Each outcome of a write: the change committed, or the write failed (metrics). */
  readonly onOutcome?: (outcome: IsrUpdateOutcome) => void
}

/** `shrink`/`expand`: a change committed; `failed`: a write failed (retried or dropped). */
export type IsrUpdateOutcome = 'shrink' | 'expand' | 'failed'

/** Errors after which resending the same change cannot succeed. */
const FINAL_ERRORS = new Set(['UNKNOWN_TABLE_OR_BUCKET_EXCEPTION', 'TABLE_NOT_EXIST', 'PARTITION_NOT_EXISTS'])

/**
 * Sends a leader's pending ISR change to the control plane and applies the answer (Fluss's
 * `submitAdjustIsr` + `handleAdjustIsrUpdate`/`Error`). An answer that arrives after the replica's
 * state moved on (a notification replaced the ISR, the epoch changed) is ignored. Failures that may
 * pass (store unavailable, throttled) are retried after a pause while the change is still pending;
 * final ones drop the change back to the last committed ISR.
 */
export class ReplicaIsrWrites {
  constructor(
    private readonly subject: IsrWriteSubject,
    private readonly isr: LeaderIsr,
    private readonly options: IsrWritesOptions,
  ) {}

  submit(pending: PendingIsrState): void {
    const { subject } = this
    const epoch = subject.leaderEpoch
    this.options.writer
      .adjustIsr({
        tableBucket: subject.tableBucket,
        leader: subject.localServerId,
        leaderEpoch: epoch,
        bucketEpoch: subject.bucketEpoch,
        isr: pending.proposedIsr,
      })
      .then(
        result => {
          if (!this.#stillPending(pending, epoch)) return
          if (result.kind === 'deposed') return this.options.onDeposed(result.leaderAndIsr.leader)
          if (result.kind === 'stale') {
            this.options.warn(
              `the ISR of ${subject.name} changed to [${result.leaderAndIsr.isr}] meanwhile; adopting it ` +
                `instead of [${pending.proposedIsr}]`,
            )
          }
          if (result.leaderAndIsr.bucketEpoch < subject.bucketEpoch) return this.isr.revert(pending)
          this.isr.commit(result.leaderAndIsr.isr)
          this.options.onOutcome?.(pending.kind === 'pendingShrink' ? 'shrink' : 'expand')
          this.options.onCommitted(result.leaderAndIsr.bucketEpoch)
        },
        error => this.#onFailure(pending, epoch, error),
      )
      .catch(e => this.options.warn(`applying the ISR change of ${subject.name} failed`, e))
  }

  #stillPending(pending: PendingIsrState, epoch: number): boolean {
    return this.subject.isLeader && this.subject.leaderEpoch === epoch && this.isr.state === pending
  }

  #onFailure(pending: PendingIsrState, epoch: number, error: unknown): void {
    if (!this.#stillPending(pending, epoch)) return
    this.options.onOutcome?.('failed')
    const final = isFlussError(error) && FINAL_ERRORS.has(error.errorName)
    this.options.warn(
      `writing the ISR [${pending.proposedIsr}] of ${this.subject.name} failed${final ? '' : '; retrying'}`,
      error,
    )
    if (final) {
      this.isr.revert(pending)
      return
    }
    const timer = setTimeout(() => {
      if (this.#stillPending(pending, epoch)) this.submit(pending)
    }, this.options.retryBackoffMs)
    timer.unref?.()
  }
}
