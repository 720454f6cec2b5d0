import type { LeaderEpochCache } from './leader-epoch-cache.js'
import type { Replica } from './replica.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'

/**
 * Runs a replica's leadership hooks one after another, in the order of its transitions, and
 * tells when a new leadership is ready for writes: its epoch entry on disk, then `onBecomeLeader`
 * done (a primary-key bucket's KV state rebuilt). A follower transition never waits for a leader
 * preparation in progress (the state change goes on); its `onBecomeFollower` runs after it.
 */
export class LeadershipHooks {
  #ready: Promise<void> = Promise.resolve()
  #chain: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly replica: Replica,
    private readonly epochCache: LeaderEpochCache,
    private readonly hooks: ReplicaHooks | undefined,
    private readonly warn: ReplicaWarn,
  ) {}

  /** Resolves once the current leadership takes writes; rejects with the preparation's failure. */
  get ready(): Promise<void> {
    return this.#ready
  }

  /** A new leader epoch: write the epoch cache, then run `onBecomeLeader`. */
  becameLeader(): void {
    const ready = this.#chain.then(async () => {
      await this.epochCache.flush()
      await this.hooks?.onBecomeLeader?.(this.replica)
    })
    this.#chain = ready.catch(e => this.warn(`preparing the leadership of ${this.replica.name} failed`, e))
    this.#ready = ready
    ready.catch(() => undefined)
  }

  /** No longer leader (follower, stopped, or deposed): `onBecomeFollower` runs after earlier hooks. */
  leadershipEnded(): void {
    this.#ready = Promise.resolve()
    const hook = this.hooks?.onBecomeFollower
    if (hook === undefined) return
    this.#chain = this.#chain
      .then(() => hook(this.replica))
      .catch(e => this.warn(`stepping down ${this.replica.name} failed`, e))
  }

  /** Resolves once the hooks of every transition so far have run. */
  async settled(): Promise<void> {
    await this.#chain
  }
}
