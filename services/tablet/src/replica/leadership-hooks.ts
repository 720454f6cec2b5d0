import type { LeaderEpochCache } from './leader-epoch-cache.js'
import type { Replica } from './replica.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'

/** The replica's own KV state, opened for a new leadership and closed when it ends. */
export interface LeaderKvSteps {
  open(): Promise<void>
  close(): Promise<void>
}

/**
 * Runs a replica's leadership hooks one after another, in the order of its transitions, and
 * tells when a new leadership is ready for writes: its epoch entry on disk, `onBecomeLeader` done,
 * then (a primary-key bucket) its KvTablet open. A follower transition never waits for a leader
 * preparation in progress (the state change goes on); closing the KvTablet and `onBecomeFollower`
 * run after it.
 */
export class LeadershipHooks {
  #ready: Promise<void> = Promise.resolve()
  #readySettled = true
  #chain: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly replica: Replica,
    private readonly epochCache: LeaderEpochCache,
    private readonly hooks: ReplicaHooks | undefined,
    private readonly warn: ReplicaWarn,
    private readonly kv: LeaderKvSteps | undefined,
  ) {}

  /** Resolves once the current leadership takes writes; rejects with the preparation's failure. */
  get ready(): Promise<void> {
    return this.#ready
  }

  /** Whether the current leadership's preparation has finished (done or failed). */
  get readySettled(): boolean {
    return this.#readySettled
  }

  /** A new leader epoch: write the epoch cache, run `onBecomeLeader`, then open the KvTablet. */
  becameLeader(): void {
    const ready = this.#chain.then(async () => {
      await this.epochCache.flush()
      await this.hooks?.onBecomeLeader?.(this.replica)
      await this.kv?.open()
    })
    this.#chain = ready.catch(e => this.warn(`preparing the leadership of ${this.replica.name} failed`, e))
    this.#ready = ready
    this.#readySettled = false
    const settled = () => {
      if (this.#ready === ready) this.#readySettled = true
    }
    ready.then(settled, settled)
  }

  /** No longer leader (follower, stopped, or deposed): the KvTablet closes, then `onBecomeFollower`. */
  leadershipEnded(): void {
    this.#ready = Promise.resolve()
    this.#readySettled = true
    const hook = this.hooks?.onBecomeFollower
    const kv = this.kv
    if (hook === undefined && kv === undefined) return
    this.#chain = this.#chain
      .then(async () => {
        await kv?.close()
        await hook?.(this.replica)
      })
      .catch(e => this.warn(`stepping down ${this.replica.name} failed`, e))
  }

  /** Resolves once the hooks of every transition so far have run. */
  async settled(): Promise<void> {
    await this.#chain
  }
}
