import { Configuration } from '@sluice/core/config'
import {
  type Catalog,
  parseListeners,
  registerTabletServer,
  renewTabletServerLease,
  type TabletServerLeaseRecord,
} from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import {
  type NotifyLeaderAndIsrRequest,
  RpcServer,
  type StopReplicaRequest,
  type UpdateMetadataRequest,
} from '@sluice/core/rpc'
import type { Clock, Timer, TimerCallback, TimerHandle } from '@sluice/core/util'

/**
 * A clock and timer that move only when told: `advance` fires every callback that falls due, in
 * time order, waiting for each (so background loops run deterministically inside a test).
 */
export class TestingTime implements Clock, Timer {
  #now: number
  #nextId = 0
  readonly #timers = new Map<number, { dueAtMs: number; callback: TimerCallback }>()

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs
  }

  nowMs(): number {
    return this.#now
  }

  schedule(delayMs: number, callback: TimerCallback): TimerHandle {
    const id = this.#nextId++
    this.#timers.set(id, { dueAtMs: this.#now + Math.max(0, delayMs), callback })
    return { cancel: () => this.#timers.delete(id) }
  }

  async advance(ms: number): Promise<void> {
    const target = this.#now + ms
    for (let fired = 0; fired < 10_000; fired++) {
      const due = [...this.#timers]
        .filter(([, t]) => t.dueAtMs <= target)
        .sort((a, b) => a[1].dueAtMs - b[1].dueAtMs)[0]
      if (due === undefined) break
      this.#timers.delete(due[0])
      this.#now = Math.max(this.#now, due[1].dueAtMs)
      await due[1].callback()
    }
    this.#now = target
  }
}

/** A coordinator configuration for tests: one listener on a random loopback port. */
export function testCoordinatorConfig(values: Record<string, string | number | boolean> = {}): Configuration {
  return Configuration.load({ 'bind.listeners': 'FLUSS://127.0.0.1:0', ...values })
}

/**
 * A tablet server stand-in: an RpcServer that records the NotifyLeaderAndIsr, StopReplica and
 * UpdateMetadata requests it gets, and a lease in the catalog. `failNext` makes the next requests fail with a
 * retriable error.
 */
export class FakeTabletServer {
  readonly notifications: NotifyLeaderAndIsrRequest[] = []
  readonly stops: StopReplicaRequest[] = []
  readonly metadataUpdates: UpdateMetadataRequest[] = []
  failNext = 0
  #lease: TabletServerLeaseRecord | undefined
  readonly #server: RpcServer

  constructor(
    readonly serverId: number,
    readonly rack: string | null = null,
  ) {
    this.#server = new RpcServer({ role: 'tablet' })
      .register('NOTIFY_LEADER_AND_ISR', req => {
        this.#maybeFail()
        this.notifications.push(req)
        return {
          notifyBucketsLeaderResp: req.notifyBucketsLeaderReq.map(b => ({ tableBucket: b.tableBucket })),
        }
      })
      .register('STOP_REPLICA', req => {
        this.#maybeFail()
        this.stops.push(req)
        return { stopReplicasResp: req.stopReplicasReq.map(b => ({ tableBucket: b.tableBucket })) }
      })
      .register('UPDATE_METADATA', req => {
        this.#maybeFail()
        this.metadataUpdates.push(req)
        return {}
      })
  }

  get port(): number {
    return this.#server.address.port
  }

  /** Buckets (as `table:partition:bucket`) with the leader/epochs last announced for each. */
  latest(): Map<string, { leader: number; leaderEpoch: number; isr: number[]; bucketEpoch: number }> {
    const out = new Map<string, { leader: number; leaderEpoch: number; isr: number[]; bucketEpoch: number }>()
    for (const req of this.notifications) {
      for (const b of req.notifyBucketsLeaderReq) {
        const key = `${b.tableBucket.tableId}:${b.tableBucket.partitionId ?? '-'}:${b.tableBucket.bucketId}`
        out.set(key, {
          leader: b.leader,
          leaderEpoch: b.leaderEpoch,
          isr: [...b.isr],
          bucketEpoch: b.bucketEpoch,
        })
      }
    }
    return out
  }

  async start(catalog: Catalog, leaseMs: number, incarnation = `inc-${this.serverId}`): Promise<void> {
    await this.#server.start()
    await this.register(catalog, leaseMs, incarnation)
  }

  /** (Re)writes the lease; a new incarnation is a restarted process. */
  async register(catalog: Catalog, leaseMs: number, incarnation: string): Promise<void> {
    this.#lease = await registerTabletServer(catalog, {
      serverId: this.serverId,
      host: '127.0.0.1',
      port: this.port,
      rack: this.rack,
      listeners: parseListeners(`FLUSS://127.0.0.1:${this.port}`),
      leaseExpiresAtMs: catalog.nowMs() + leaseMs,
      incarnation,
    })
  }

  async renew(catalog: Catalog, leaseMs: number): Promise<void> {
    if (this.#lease === undefined) throw new Error('not registered')
    this.#lease = await renewTabletServerLease(catalog, this.#lease, catalog.nowMs() + leaseMs)
  }

  async close(): Promise<void> {
    await this.#server.close(100)
  }

  #maybeFail(): void {
    if (this.failNext <= 0) return
    this.failNext--
    throw new FlussError('NETWORK_EXCEPTION', 'injected failure')
  }
}

/** Polls `condition` every few milliseconds until it holds; fails after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}

/**
 * A CreateTable `table_json` as a Fluss client sends it: an INT `id` and a STRING NOT NULL `dt`
 * column, optionally partitioned by `dt`.
 */
export function testTableJson(
  options: { partitioned?: boolean; buckets?: number; properties?: Record<string, string> } = {},
): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: 1,
      schema: {
        version: 1,
        columns: [
          { name: 'id', data_type: { type: 'INTEGER' } },
          { name: 'dt', data_type: { type: 'STRING', nullable: false } },
        ],
      },
      partition_key: options.partitioned === true ? ['dt'] : [],
      bucket_key: [],
      bucket_count: options.buckets ?? 1,
      properties: options.properties ?? {},
      custom_properties: {},
    }),
  )
}
