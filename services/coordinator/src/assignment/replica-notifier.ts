import type { LeaderAndIsr } from '@sluice/core/control-plane'
import { errorByCode, toFlussError } from '@sluice/core/errors'
import type { BucketRef } from '@sluice/core/metastore'
import type {
  ConnectionPool,
  PbPhysicalTablePathInit,
  PbTableMetadataInit,
  ServerEndpoint,
} from '@sluice/core/rpc'
import { exponentialBackoffMs, type Timer, type TimerHandle } from '@sluice/core/util'
import { bucketId } from '../server/coordinator-context.js'
import type { CoordinatorLogger } from '../server/coordinator-logger.js'

export interface LeaderAndIsrNotice {
  readonly physicalTablePath: PbPhysicalTablePathInit
  readonly ref: BucketRef
  readonly leaderAndIsr: LeaderAndIsr
}

export interface StopReplicaNotice {
  readonly ref: BucketRef
  readonly leaderEpoch: number
  readonly delete: boolean
}

export interface ReplicaNotifierOptions {
  readonly pool: Pick<ConnectionPool, 'request'>
  /** Where a live server listens; undefined for a server that is not live (its notices wait). */
  readonly endpoint: (serverId: number) => ServerEndpoint | undefined
  /** The epoch to send; undefined while this coordinator is not active (nothing is sent). */
  readonly coordinatorEpoch: () => number | undefined
  readonly timer: Timer
  readonly logger: CoordinatorLogger
  readonly retryBackoffMs: number
  readonly retryMaxBackoffMs: number
  readonly maxBucketsPerRequest: number
  readonly requestTimeoutMs: number
}

interface PendingStop {
  readonly notice: StopReplicaNotice
  readonly done: () => void
}

interface Outbox {
  /** Latest notice per bucket: a newer one replaces an unsent older one. */
  readonly leaderAndIsr: Map<string, LeaderAndIsrNotice>
  readonly stops: Map<string, PendingStop[]>
  /** Latest metadata per table id (UPDATE_METADATA after a schema change). */
  readonly tables: Map<number, PbTableMetadataInit>
  attempts: number
  sending: boolean
  retry: TimerHandle | undefined
}

/**
 * Delivers NotifyLeaderAndIsr, StopReplica and UpdateMetadata (tables whose schema changed) to
 * tablet servers, batched per server and retried
 * with doubling backoff until the server answers or leaves the cluster. Per server at most one
 * request is in flight and at most one notice per bucket waits, so the backlog is bounded by the
 * buckets a server hosts.
 */
export class ReplicaNotifier {
  readonly #options: ReplicaNotifierOptions
  readonly #outboxes = new Map<number, Outbox>()
  readonly #inFlight = new Set<Promise<void>>()

  constructor(options: ReplicaNotifierOptions) {
    this.#options = options
  }

  notifyLeaderAndIsr(serverId: number, notices: readonly LeaderAndIsrNotice[]): void {
    const outbox = this.#outbox(serverId)
    for (const n of notices) outbox.leaderAndIsr.set(bucketId(n.ref), n)
    this.#kick(serverId)
  }

  /** Queues a table's new metadata (its schema changed) for a server; a newer one replaces it. */
  notifyTableMetadata(serverId: number, table: PbTableMetadataInit): void {
    this.#outbox(serverId).tables.set(table.tableId, table)
    this.#kick(serverId)
  }

  /** Resolves once the server took the stop (or left the cluster, or the notifier was cleared). */
  stopReplicas(serverId: number, notices: readonly StopReplicaNotice[]): Promise<void> {
    const outbox = this.#outbox(serverId)
    const waits = notices.map(
      notice =>
        new Promise<void>(done => {
          const id = bucketId(notice.ref)
          outbox.stops.set(id, [...(outbox.stops.get(id) ?? []), { notice, done }])
        }),
    )
    this.#kick(serverId)
    return Promise.all(waits).then(() => undefined)
  }

  /** Buckets waiting to be sent to a server. */
  pending(serverId: number): { leaderAndIsr: number; stops: number; tables: number } {
    const o = this.#outboxes.get(serverId)
    return { leaderAndIsr: o?.leaderAndIsr.size ?? 0, stops: o?.stops.size ?? 0, tables: o?.tables.size ?? 0 }
  }

  /** Drops everything queued for a server that left the cluster. */
  serverRemoved(serverId: number): void {
    const outbox = this.#outboxes.get(serverId)
    if (outbox === undefined) return
    outbox.retry?.cancel()
    for (const stops of outbox.stops.values()) for (const s of stops) s.done()
    this.#outboxes.delete(serverId)
  }

  /** Waits for the requests in flight (not for retries scheduled later). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight])
  }

  /** Forgets everything (standby or shutdown). */
  clear(): void {
    for (const serverId of [...this.#outboxes.keys()]) this.serverRemoved(serverId)
  }

  #outbox(serverId: number): Outbox {
    let outbox = this.#outboxes.get(serverId)
    if (outbox === undefined) {
      outbox = {
        leaderAndIsr: new Map(),
        stops: new Map(),
        tables: new Map(),
        attempts: 0,
        sending: false,
        retry: undefined,
      }
      this.#outboxes.set(serverId, outbox)
    }
    return outbox
  }

  #kick(serverId: number): void {
    const outbox = this.#outboxes.get(serverId)
    if (outbox === undefined || outbox.sending || outbox.retry !== undefined) return
    outbox.sending = true
    const run = this.#drain(serverId, outbox)
      .catch(e => this.#options.logger.warn('sending notifications failed', { serverId, error: String(e) }))
      .finally(() => this.#inFlight.delete(run))
    this.#inFlight.add(run)
  }

  /** Sends until the outbox is empty, the server is unreachable for now, or a retry is due. */
  async #drain(serverId: number, outbox: Outbox): Promise<void> {
    try {
      while (
        this.#outboxes.get(serverId) === outbox &&
        (outbox.leaderAndIsr.size > 0 || outbox.stops.size > 0 || outbox.tables.size > 0)
      ) {
        const epoch = this.#options.coordinatorEpoch()
        const endpoint = this.#options.endpoint(serverId)
        if (epoch === undefined || endpoint === undefined) return
        const target = { serverId, endpoint, epoch }
        const retry =
          outbox.leaderAndIsr.size > 0
            ? await this.#sendLeaderAndIsr(target, outbox)
            : outbox.stops.size > 0
              ? await this.#sendStops(target, outbox)
              : await this.#sendTableMetadata(target, outbox)
        if (retry) return this.#scheduleRetry(serverId, outbox)
        outbox.attempts = 0
      }
    } finally {
      // Cleared in the same step as the last emptiness check, so a notice queued right after
      // always starts a new drain.
      outbox.sending = false
    }
  }

  /**
   * Sends one request; true when it (or some bucket in it) must be resent. A request the server
   * refuses for good (not retriable) is dropped with a warning: resending it cannot succeed.
   */
  async #request<R>(target: Target, send: () => Promise<R>): Promise<R | 'retry' | 'refused'> {
    try {
      return await send()
    } catch (e) {
      const error = toFlussError(e)
      if (error.retriable) return 'retry'
      this.#options.logger.warn('tablet server refused a notification', {
        serverId: target.serverId,
        error: error.message,
      })
      return 'refused'
    }
  }

  #scheduleRetry(serverId: number, outbox: Outbox): void {
    outbox.attempts++
    const { retryBackoffMs, retryMaxBackoffMs } = this.#options
    const delayMs = exponentialBackoffMs(outbox.attempts, retryBackoffMs, retryMaxBackoffMs)
    outbox.retry = this.#options.timer.schedule(delayMs, () => {
      outbox.retry = undefined
      this.#kick(serverId)
    })
  }

  async #sendLeaderAndIsr(target: Target, outbox: Outbox): Promise<boolean> {
    const batch = [...outbox.leaderAndIsr.entries()].slice(0, this.#options.maxBucketsPerRequest)
    const request = {
      coordinatorEpoch: target.epoch,
      notifyBucketsLeaderReq: batch.map(([, n]) => ({
        physicalTablePath: n.physicalTablePath,
        tableBucket: pbBucket(n.ref),
        leader: n.leaderAndIsr.leader ?? NO_LEADER,
        leaderEpoch: n.leaderAndIsr.leaderEpoch,
        replicas: [...n.leaderAndIsr.replicas],
        isr: [...n.leaderAndIsr.isr],
        bucketEpoch: n.leaderAndIsr.bucketEpoch,
      })),
    }
    const response = await this.#request(target, () =>
      this.#options.pool.request(target.endpoint, 'NOTIFY_LEADER_AND_ISR', request, {
        timeoutMs: this.#options.requestTimeoutMs,
      }),
    )
    if (response === 'retry') return true
    const retry =
      response === 'refused' ? new Set<string>() : retriableBuckets(response.notifyBucketsLeaderResp)
    for (const [id, notice] of batch) {
      if (!retry.has(id) && outbox.leaderAndIsr.get(id) === notice) outbox.leaderAndIsr.delete(id)
    }
    return retry.size > 0
  }

  async #sendTableMetadata(target: Target, outbox: Outbox): Promise<boolean> {
    const batch = [...outbox.tables.values()]
    const response = await this.#request(target, () =>
      this.#options.pool.request(
        target.endpoint,
        'UPDATE_METADATA',
        { coordinatorEpoch: target.epoch, tableMetadata: batch },
        { timeoutMs: this.#options.requestTimeoutMs },
      ),
    )
    if (response === 'retry') return true
    for (const t of batch) if (outbox.tables.get(t.tableId) === t) outbox.tables.delete(t.tableId)
    return false
  }

  async #sendStops(target: Target, outbox: Outbox): Promise<boolean> {
    const batch = [...outbox.stops.entries()].slice(0, this.#options.maxBucketsPerRequest)
    const request = {
      coordinatorEpoch: target.epoch,
      stopReplicasReq: batch.map(([, stops]) => {
        const { ref, leaderEpoch, delete: del } = stops[stops.length - 1].notice
        return { tableBucket: pbBucket(ref), leaderEpoch, delete: stops.some(s => s.notice.delete) || del }
      }),
    }
    const response = await this.#request(target, () =>
      this.#options.pool.request(target.endpoint, 'STOP_REPLICA', request, {
        timeoutMs: this.#options.requestTimeoutMs,
      }),
    )
    if (response === 'retry') return true
    const retry = response === 'refused' ? new Set<string>() : retriableBuckets(response.stopReplicasResp)
    for (const [id, stops] of batch) {
      if (retry.has(id)) continue
      outbox.stops.delete(id)
      for (const s of stops) s.done()
    }
    return retry.size > 0
  }
}

interface Target {
  readonly serverId: number
  readonly endpoint: ServerEndpoint
  readonly epoch: number
}

/** Fluss's LeaderAndIsr.NO_LEADER on the wire. */
const NO_LEADER = -1

function pbBucket(ref: BucketRef): { tableId: number; partitionId: number | null; bucketId: number } {
  return { tableId: ref.tableId, partitionId: ref.partitionId ?? null, bucketId: ref.bucket }
}

/** Buckets answered with a retriable error (kept for a resend); others are done. */
function retriableBuckets(
  responses: readonly {
    tableBucket: { tableId: number; partitionId: number | null; bucketId: number }
    errorCode: number | null
  }[],
): Set<string> {
  const ids = new Set<string>()
  for (const r of responses) {
    if (r.errorCode === null || r.errorCode === 0 || !errorByCode(r.errorCode).retriable) continue
    ids.add(
      bucketId({
        tableId: r.tableBucket.tableId,
        partitionId: r.tableBucket.partitionId,
        bucket: r.tableBucket.bucketId,
      }),
    )
  }
  return ids
}
