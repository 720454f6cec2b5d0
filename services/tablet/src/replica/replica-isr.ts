import { FollowerState } from './follower-state.js'
import {
  committedIsr,
  type IsrState,
  isInflight,
  maximalIsr,
  type PendingIsrState,
  pendingExpand,
  pendingShrink,
} from './isr-state.js'

/** What the ISR bookkeeping reads from its replica's log. */
export interface IsrLogView {
  readonly logEndOffset: number
  readonly highWatermark: number
}

export interface LeaderIsrOptions {
  readonly localServerId: number
  /** `log.replica.max-lag-time`. */
  readonly maxLagMs: number
  readonly log: IsrLogView
  /** Whether a follower may join the ISR (Fluss: it is a live server). Default: any replica. */
  readonly isEligible?: (followerId: number) => boolean
}

/**
 * The leader side of a bucket's ISR (the follower and ISR parts of Fluss's `Replica`): each
 * follower's fetch state, the ISR state, which followers fell out of sync and which caught up, and
 * the high-watermark candidate. It decides; the Replica writes the changes to the control plane
 * and applies the outcome.
 */
export class LeaderIsr {
  readonly #options: LeaderIsrOptions
  readonly #followers = new Map<number, FollowerState>()
  #state: IsrState = committedIsr([])

  constructor(options: LeaderIsrOptions) {
    this.#options = options
  }

  get state(): IsrState {
    return this.#state
  }

  /** The ISR as acks=all and the minimum-ISR check see it. */
  get isr(): readonly number[] {
    return this.#state.isr
  }

  /** Replicas assigned to the bucket: the followers tracked here and this leader. */
  get assignedReplicas(): number {
    return this.#followers.size + 1
  }

  follower(id: number): FollowerState | undefined {
    return this.#followers.get(id)
  }

  /**
   * Applies a leadership assignment. A new leader epoch forgets what followers fetched; the same
   * epoch keeps it (only the assignment and the committed ISR change).
   */
  assign(replicas: readonly number[], isr: readonly number[], isNewEpoch: boolean, nowMs: number): void {
    const followers = replicas.filter(id => id !== this.#options.localServerId)
    for (const id of [...this.#followers.keys()]) if (!followers.includes(id)) this.#followers.delete(id)
    for (const id of followers) {
      let state = this.#followers.get(id)
      if (state === undefined) {
        state = new FollowerState(id)
        this.#followers.set(id, state)
        state.reset(nowMs, isr.includes(id))
      } else if (isNewEpoch) {
        state.reset(nowMs, isr.includes(id))
      }
    }
    this.#state = committedIsr(isr)
  }

  /** No longer leader: forget everything. */
  clear(): void {
    this.#followers.clear()
    this.#state = committedIsr([])
  }

  /** Commits an ISR as stored in the control plane (a confirmed write, or the stored state adopted). */
  commit(isr: readonly number[]): void {
    this.#state = committedIsr(isr)
  }

  /** A pending change failed for good: back to the last committed ISR. */
  revert(pending: PendingIsrState): void {
    if (this.#state === pending) this.#state = committedIsr(pending.lastCommitted)
  }

  /** Records a follower's fetch; true when its log end offset moved. */
  updateFollowerFetchState(followerId: number, fetchOffset: number, nowMs: number): boolean {
    const state = this.#followers.get(followerId)
    if (state === undefined) return false
    const previous = state.logEndOffset
    const logEndOffset = Math.min(fetchOffset, this.#options.log.logEndOffset)
    state.updateFetchState(logEndOffset, nowMs, this.#options.log.logEndOffset)
    return state.logEndOffset !== previous
  }

  /**
   * An expansion to propose now (the state becomes pending), or undefined. The follower must not be
   * in the ISR, may join, and no change may be in flight; it must hold everything up to the high
   * watermark and up to where this leader's epoch began (`epochStartOffset`: so every ISR member
   * has what the previous leaders wrote), and have reached the leader's log end within the lag time.
   */
  prepareExpand(followerId: number, epochStartOffset: number, nowMs: number): PendingIsrState | undefined {
    const state = this.#followers.get(followerId)
    const eligible = this.#options.isEligible?.(followerId) ?? true
    if (state === undefined || isInflight(this.#state) || this.#state.isr.includes(followerId) || !eligible) {
      return undefined
    }
    const { log, maxLagMs } = this.#options
    const holdsCommitted = state.logEndOffset >= log.highWatermark && state.logEndOffset >= epochStartOffset
    if (!holdsCommitted || !state.isCaughtUp(log.logEndOffset, nowMs, maxLagMs)) return undefined
    this.#state = pendingExpand(this.#state.isr, followerId)
    return this.#state
  }

  /** The ISR members (other than this leader) that are out of sync at `nowMs`; none while a change is in flight. */
  outOfSyncFollowers(nowMs: number): number[] {
    if (isInflight(this.#state)) return []
    const leaderEnd = this.#options.log.logEndOffset
    return this.#state.isr.filter(id => {
      if (id === this.#options.localServerId) return false
      const state = this.#followers.get(id)
      return state === undefined || !state.isCaughtUp(leaderEnd, nowMs, this.#options.maxLagMs)
    })
  }

  /** A shrink to propose now (the state becomes pending), or undefined. */
  prepareShrink(nowMs: number): PendingIsrState | undefined {
    const outOfSync = this.outOfSyncFollowers(nowMs)
    if (outOfSync.length === 0) return undefined
    this.#state = pendingShrink(this.#state.isr, outOfSync)
    return this.#state
  }

  /**
   * The smallest log end offset over the maximal ISR, and over followers that are caught up and
   * about to join it (Fluss waits for those too), starting from the leader's own log end.
   */
  highWatermarkCandidate(nowMs: number): number {
    const leaderEnd = this.#options.log.logEndOffset
    const maximal = maximalIsr(this.#state)
    let candidate = leaderEnd
    for (const [id, state] of this.#followers) {
      if (state.logEndOffset >= candidate) continue
      const joining =
        state.isCaughtUp(leaderEnd, nowMs, this.#options.maxLagMs) && (this.#options.isEligible?.(id) ?? true)
      if (maximal.includes(id) || joining) candidate = state.logEndOffset
    }
    return candidate
  }
}
