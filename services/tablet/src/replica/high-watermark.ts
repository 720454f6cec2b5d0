import type { LogTablet } from '../log/index.js'
import type { Replica } from './replica.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'

/**
 * Moves a replica's high watermark and tells `onHighWatermarkAdvanced`. On a leader with a
 * `beforeHighWatermarkAdvance` hook (a KV bucket flushing its pre-write buffer first) moves run
 * one after another, asynchronously, and only while the replica still leads the epoch they were
 * computed in.
 */
export class HighWatermarkMover {
  #chain: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly replica: Replica,
    private readonly log: LogTablet,
    private readonly hooks: ReplicaHooks | undefined,
    private readonly warn: ReplicaWarn,
    private readonly onGatedMove: () => void,
  ) {}

  /** Moves the leader's high watermark toward `candidate`; true when it moved now (not gated). */
  advanceLeader(candidate: number, leaderEpoch: number): boolean {
    const gate = this.hooks?.beforeHighWatermarkAdvance
    if (gate === undefined || this.hooks?.gatesHighWatermark?.(this.replica) === false)
      return this.#set(candidate)
    const leads = () => this.replica.isLeader && this.replica.leaderEpoch === leaderEpoch
    this.#chain = this.#chain
      .then(async () => {
        if (!leads() || candidate <= this.log.highWatermark) return
        const allowed = await gate(this.replica, candidate)
        if (leads() && this.#set(Math.min(allowed, candidate))) this.onGatedMove()
      })
      .catch(e => this.warn(`moving the high watermark of ${this.replica.name} failed`, e))
    return false
  }

  /** Resolves once the gated moves started so far have landed. */
  async settled(): Promise<void> {
    await this.#chain
  }

  /** A follower's high watermark: the leader's, but never above its own log end. */
  updateFollower(leaderHighWatermark: number): void {
    const highWatermark = Math.min(leaderHighWatermark, this.log.logEndOffset)
    if (highWatermark <= this.log.highWatermark) return
    this.log.updateHighWatermark(highWatermark)
    this.hooks?.onHighWatermarkAdvanced?.(this.replica, highWatermark)
  }

  #set(highWatermark: number): boolean {
    if (!this.log.maybeIncrementHighWatermark(highWatermark)) return false
    this.hooks?.onHighWatermarkAdvanced?.(this.replica, this.log.highWatermark)
    return true
  }
}
