import {
  type BucketRecord,
  type Catalog,
  isFencedByNewerCoordinator,
  type LeaderAndIsr,
  mapBounded,
  updateBucketAsCoordinator,
} from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { BucketRef } from '@sluice/core/metastore'
import type { MembershipChange, TabletServerMembership } from '../membership/membership.js'
import type { CoordinatorContext } from '../server/coordinator-context.js'
import type { CoordinatorLogger } from '../server/coordinator-logger.js'
import { afterControlledShutdown, afterReplicaLoss, afterServersReturn } from './bucket-election.js'
import type { LeaderAndIsrNotice, ReplicaNotifier, StopReplicaNotice } from './replica-notifier.js'

export interface ReplicaLeadershipDeps {
  readonly catalog: Catalog
  readonly context: CoordinatorContext
  readonly membership: TabletServerMembership
  readonly notifier: ReplicaNotifier
  /** The active coordinator's epoch (throws when not active). */
  readonly coordinatorEpoch: () => number
  /** Called when a bucket write was fenced by a newer coordinator: this one must step down. */
  readonly onFenced: (reason: string) => void
  readonly concurrency: number
  readonly logger: CoordinatorLogger
}

/** Thrown out of a bucket update that a newer coordinator fenced, to stop the work at hand. */
export class CoordinatorFencedError extends Error {}

/**
 * Leadership of bucket replicas as servers come and go (Fluss's dead/new tablet server handling):
 * - a dead server's buckets: it leaves their ISR (unless last), and where it led, the first live
 *   ISR member in assignment order is elected (none: no leader); live replicas are notified;
 * - a returning server: buckets without a live leader elect one if they can, and the server gets a
 *   NotifyLeaderAndIsr for every bucket it hosts, with the current state read from the catalog;
 * - a server shutting down (controlled shutdown): its leaderships move to other in-sync replicas,
 *   it leaves the ISRs, its replicas are stopped, and it is never elected until it leaves.
 * Every bucket write is conditioned on its version and fenced by coordinatorEpoch; the current
 * state is read from the catalog first, so ISR changes written by bucket leaders are never lost.
 */
export class ReplicaLeadership {
  readonly #deps: ReplicaLeadershipDeps
  /** Servers in controlled shutdown: live, but never elected (Fluss's shuttingDownTabletServers). */
  readonly #shuttingDown = new Set<number>()

  constructor(deps: ReplicaLeadershipDeps) {
    this.#deps = deps
  }

  /** Live servers that may lead: not shutting down. */
  eligibleIds(): Set<number> {
    const live = this.#deps.membership.liveIds()
    for (const id of this.#shuttingDown) live.delete(id)
    return live
  }

  /** Forgets the servers in controlled shutdown (a standby keeps no view). */
  reset(): void {
    this.#shuttingDown.clear()
  }

  get shuttingDown(): ReadonlySet<number> {
    return this.#shuttingDown
  }

  async onMembershipChange(change: MembershipChange): Promise<void> {
    for (const lost of change.removed) this.#shuttingDown.delete(lost.serverId)
    for (const lost of change.removed) {
      this.#deps.notifier.serverRemoved(lost.serverId)
      this.#deps.logger.info('tablet server left', { serverId: lost.serverId, incarnation: lost.incarnation })
      await this.#onServerLost(lost.serverId)
    }
    if (change.added.length === 0) return
    for (const s of change.added)
      this.#deps.logger.info('tablet server joined', { serverId: s.serverId, host: s.host, port: s.port })
    await this.electLeaderless()
    for (const s of change.added) await this.notifyServer(s.serverId)
  }

  /** After activation: no bucket keeps a leader that is not live, and every live server is told its buckets. */
  async reconcile(): Promise<void> {
    const live = this.eligibleIds()
    const epoch = this.#deps.coordinatorEpoch()
    const orphaned = this.#deps.context
      .buckets()
      .filter(b => b.leaderAndIsr.leader !== null && !live.has(b.leaderAndIsr.leader))
    await mapBounded(orphaned, this.#deps.concurrency, async b => {
      const dead = b.leaderAndIsr.leader as number
      await this.#update(b.ref, l => (l.leader === dead ? afterReplicaLoss(l, dead, live, epoch) : undefined))
    })
    await this.electLeaderless()
    await this.#notifyAll()
  }

  /** Elects leaders for buckets whose leader is missing or not live, where a live ISR member exists. */
  async electLeaderless(): Promise<void> {
    const live = this.eligibleIds()
    const epoch = this.#deps.coordinatorEpoch()
    const candidates = this.#deps.context
      .buckets()
      .filter(b => b.leaderAndIsr.leader === null || !live.has(b.leaderAndIsr.leader))
    await mapBounded(candidates, this.#deps.concurrency, b =>
      this.#update(b.ref, l => afterServersReturn(l, live, epoch)),
    )
  }

  /** Sends a server the current LeaderAndIsr of every bucket it hosts (read fresh from the catalog). */
  async notifyServer(serverId: number): Promise<void> {
    const tableIds = new Set(this.#deps.context.bucketsOnServer(serverId).map(b => b.ref.tableId))
    const notices: LeaderAndIsrNotice[] = []
    for (const tableId of tableIds) {
      for (const fresh of await this.#deps.catalog.listAllBuckets(tableId)) {
        if (this.#deps.context.bucket(fresh.ref) === undefined) continue
        this.#deps.context.putBucket(fresh)
        const notice = this.notice(fresh)
        if (notice !== undefined && fresh.leaderAndIsr.replicas.includes(serverId)) notices.push(notice)
      }
    }
    if (notices.length > 0) this.#deps.notifier.notifyLeaderAndIsr(serverId, notices)
  }

  /** Reads every known bucket fresh and tells each live server the state of the buckets it hosts. */
  async #notifyAll(): Promise<void> {
    const { catalog, context, membership, notifier, concurrency } = this.#deps
    await mapBounded(context.tables(), concurrency, async table => {
      for (const fresh of await catalog.listAllBuckets(table.tableId)) {
        if (context.bucket(fresh.ref) !== undefined) context.putBucket(fresh)
      }
    })
    const live = membership.liveIds()
    const byServer = new Map<number, LeaderAndIsrNotice[]>()
    for (const bucket of context.buckets()) {
      const notice = this.notice(bucket)
      if (notice === undefined) continue
      for (const serverId of bucket.leaderAndIsr.replicas) {
        if (!live.has(serverId)) continue
        const notices = byServer.get(serverId) ?? []
        byServer.set(serverId, notices)
        notices.push(notice)
      }
    }
    for (const [serverId, notices] of byServer) notifier.notifyLeaderAndIsr(serverId, notices)
  }

  /** Queues the bucket's state for each of its live replicas (not for servers shutting down: they are stopped). */
  notifyReplicas(bucket: BucketRecord): void {
    const notice = this.notice(bucket)
    if (notice === undefined) return
    const live = this.#deps.membership.liveIds()
    for (const serverId of bucket.leaderAndIsr.replicas) {
      if (live.has(serverId) && !this.#shuttingDown.has(serverId))
        this.#deps.notifier.notifyLeaderAndIsr(serverId, [notice])
    }
  }

  /**
   * CONTROLLED_SHUTDOWN of a live server: it may no longer be elected; where it leads, another
   * in-sync replica takes over; it leaves every ISR (unless last); the replicas it no longer leads
   * are stopped on it (kept on disk), so it neither serves nor fetches them. Returns the buckets it
   * still leads (no other in-sync replica could take over): the server asks again.
   */
  async controlledShutdown(serverId: number): Promise<BucketRecord[]> {
    if (this.#deps.membership.get(serverId) === undefined) {
      throw new FlussError('SERVER_NOT_EXIST_EXCEPTION', `tablet server ${serverId} is not available`)
    }
    this.#shuttingDown.add(serverId)
    this.#deps.logger.info('tablet server shutting down', { serverId })
    const eligible = this.eligibleIds()
    const epoch = this.#deps.coordinatorEpoch()
    await mapBounded(this.#deps.context.bucketsOnServer(serverId), this.#deps.concurrency, b =>
      this.#update(b.ref, l => afterControlledShutdown(l, serverId, eligible, epoch)),
    )
    const remaining: BucketRecord[] = []
    const stops: StopReplicaNotice[] = []
    for (const b of this.#deps.context.bucketsOnServer(serverId)) {
      const { leader, replicas, leaderEpoch } = b.leaderAndIsr
      if (leader !== serverId) stops.push({ ref: b.ref, leaderEpoch, delete: false })
      // Only a live replica that is not shutting down could still take over (once back in the
      // ISR). A bucket without one (its other replicas stopped or stopping, or none: a whole
      // cluster stopping) can never move, so the server is not told to wait for it.
      else if (replicas.some(r => r !== serverId && eligible.has(r))) remaining.push(b)
    }
    if (stops.length > 0) {
      this.#deps.notifier
        .stopReplicas(serverId, stops)
        .catch(e => this.#deps.logger.warn('stopping replicas failed', { serverId, error: String(e) }))
    }
    return remaining
  }

  notice(bucket: BucketRecord): LeaderAndIsrNotice | undefined {
    const physicalTablePath = this.#deps.context.physicalPath(bucket.ref)
    return physicalTablePath === undefined
      ? undefined
      : { physicalTablePath, ref: bucket.ref, leaderAndIsr: bucket.leaderAndIsr }
  }

  async #onServerLost(serverId: number): Promise<void> {
    const live = this.eligibleIds()
    const epoch = this.#deps.coordinatorEpoch()
    const hosted = this.#deps.context.bucketsOnServer(serverId)
    await mapBounded(hosted, this.#deps.concurrency, b =>
      this.#update(b.ref, l => afterReplicaLoss(l, serverId, live, epoch)),
    )
  }

  /** One fenced read-modify-write of a bucket; a change is recorded and announced to the replicas. */
  async #update(ref: BucketRef, change: (l: LeaderAndIsr) => LeaderAndIsr | undefined): Promise<void> {
    const epoch = this.#deps.coordinatorEpoch()
    let result: Awaited<ReturnType<typeof updateBucketAsCoordinator>>
    try {
      result = await updateBucketAsCoordinator(this.#deps.catalog, ref, epoch, change)
    } catch (e) {
      if (!isFencedByNewerCoordinator(e, epoch)) throw e
      this.#deps.onFenced(`bucket ${JSON.stringify(ref)} was written by a newer coordinator`)
      throw new CoordinatorFencedError('fenced by a newer coordinator')
    }
    if (result === undefined) return this.#deps.context.removeBucket(ref)
    this.#deps.context.putBucket(result.record)
    if (!result.changed) return
    const l = result.record.leaderAndIsr
    this.#deps.logger.info('bucket leadership changed', {
      ...ref,
      leader: l.leader,
      leaderEpoch: l.leaderEpoch,
      isr: l.isr,
    })
    this.notifyReplicas(result.record)
  }
}
