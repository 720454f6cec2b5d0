import type { KvTablet } from '../kv/index.js'
import type { LogTablet } from '../log/index.js'
import type { Replica } from './replica.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'

/**
 * Moves a replica's high watermark and tells `onHighWatermarkAdvanced`. The leader of a
 * primary-key bucket (`kvTablet` given) never moves it past what its KvTablet has flushed: the
 * pre-write buffer is flushed up to the candidate first, so that when an acks=all write completes,
 * lookups already see it (Fluss clamps the high watermark to the KV flushed offset), and while the
 * KvTablet is not open the high watermark stays. Such moves run one after another, asynchronously,
 * and only while the replica still leads the epoch they were computed in.
 */
export class HighWatermarkMover {
  #chain: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly replica: Replica,
    private readonly log: LogTablet,
    private readonly hooks: ReplicaHooks | undefined,
    private readonly warn: ReplicaWarn,
    private readonly onGatedMove: () => void,
    /** The open KvTablet of a primary-key leader; undefined for buckets without one (log tables). */
    private readonly kvTablet: (() => KvTablet | null) | undefined,
  ) {}

  /** Moves the leader's high watermark toward `candidate`; true when it moved now (not gated). */
  advanceLeader(candidate: number, leaderEpoch: number): boolean {
    const kvTablet = this.kvTablet
    if (kvTablet === undefined) return this.#set(candidate)
    const leads = () => this.replica.isLeader && this.replica.leaderEpoch === leaderEpoch
    this.#chain = this.#chain
      .then(async () => {
        if (!leads() || candidate <= this.log.highWatermark) return
        const kv = kvTablet()
        if (kv === null) return
        const flushed = await kv.flush(candidate)
        if (leads() && this.#set(Math.min(flushed, candidate))) this.onGatedMove()
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
