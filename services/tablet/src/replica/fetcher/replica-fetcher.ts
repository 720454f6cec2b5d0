import { ERRORS } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey } from '@sluice/core/metadata'
import type { ConnectionPool, FetchLogResponse, PbFetchLogReqForTableInit } from '@sluice/core/rpc'
import type { Replica } from '../replica.js'
import { applySync, planSync } from './leader-epoch-sync.js'
import { handleOutOfRange, leaderEpochQueries, leaderLogBounds } from './out-of-range.js'

/** Follower fetch settings, from the `log.replica.fetch.*` options. */
export interface ReplicaFetchSettings {
  readonly maxBytes: number
  readonly maxBytesForBucket: number
  readonly minBytes: number
  readonly maxWaitMs: number
  readonly backoffMs: number
  /** Added to `maxWaitMs` for the request timeout. */
  readonly requestTimeoutMs: number
}

/** What a fetcher needs from the server around it. */
export interface ReplicaFetcherContext {
  readonly localServerId: number
  readonly pool: ConnectionPool
  readonly settings: ReplicaFetchSettings
  /** The hosted replica of a bucket, if any. */
  replica(bucket: TableBucket): Replica | undefined
  /** Where the leader listens (internal listener). */
  leaderEndpoint(leaderId: number): Promise<{ host: string; port: number }>
  warn(message: string, error?: unknown, fields?: Readonly<Record<string, unknown>>): void
}

interface FetchEntry {
  readonly tableBucket: TableBucket
  /** Not fetched before this time (backoff after an error). */
  delayedUntilMs: number
  /** The log must be reconciled with the leader's epochs before the next fetch. */
  needsSync: boolean
  /** The leader refused the fetch offset as out of range: ask for its log bounds first. */
  outOfRange: boolean
}

/**
 * Replicates the buckets this server follows from one leader server (Fluss's
 * `ReplicaFetcherThread`): one async loop that first reconciles each newly added bucket's log with
 * the leader's epochs (`leader-epoch-sync.ts`), then sends FETCH_LOG with follower_server_id = own
 * id and each bucket's log end offset as fetch offset, appending what comes back and taking the
 * leader's high watermark. Buckets that fail back off; so does the whole loop when the request
 * fails.
 */
export class ReplicaFetcher {
  readonly #entries = new Map<string, FetchEntry>()
  #running: Promise<void> | undefined
  #stopped = false
  #awaitingLeader = false
  #wake: (() => void) | undefined

  constructor(
    readonly leaderId: number,
    private readonly context: ReplicaFetcherContext,
  ) {}

  get bucketCount(): number {
    return this.#entries.size
  }

  addBuckets(buckets: readonly TableBucket[]): void {
    for (const tableBucket of buckets) {
      this.#entries.set(tableBucketKey(tableBucket), {
        tableBucket,
        delayedUntilMs: 0,
        needsSync: true,
        outOfRange: false,
      })
    }
    this.#running ??= this.#run()
    this.#wake?.()
  }

  /** Stops fetching these buckets; a response already in flight for them is discarded. */
  removeBuckets(buckets: readonly TableBucket[]): void {
    for (const b of buckets) this.#entries.delete(tableBucketKey(b))
  }

  /**
   * Stops the loop. A request waiting for the leader (a long poll, or a leader that stopped
   * answering) is not waited for: its answer finds no bucket left and is dropped.
   */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#entries.clear()
    this.#wake?.()
    if (!this.#awaitingLeader) await this.#running
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const nowMs = Date.now()
      const ready = [...this.#entries.values()].filter(e => e.delayedUntilMs <= nowMs)
      if (ready.length === 0) {
        const next = Math.min(...[...this.#entries.values()].map(e => e.delayedUntilMs))
        await this.#sleep(Number.isFinite(next) ? next - nowMs : this.context.settings.backoffMs)
        continue
      }
      const syncing = ready.filter(e => e.needsSync || e.outOfRange)
      if (syncing.length > 0) {
        this.#awaitingLeader = true
        try {
          for (const entry of syncing) if (!this.#stopped) await this.#sync(entry)
        } finally {
          this.#awaitingLeader = false
        }
        continue
      }
      try {
        await this.#fetchOnce(ready)
      } catch (e) {
        this.context.warn(`fetch from leader ${this.leaderId} failed`, e, { leader: this.leaderId })
        this.#backoff(ready)
        await this.#sleep(this.context.settings.backoffMs)
      }
    }
  }

  /**
   * Reconciles one bucket's log with the leader (after an out-of-range answer, first with the
   * leader's log bounds); on failure the bucket backs off and tries again. The questions are asked
   * outside the replica's follower queue; only the local changes run in it.
   */
  async #sync(entry: FetchEntry): Promise<void> {
    const key = tableBucketKey(entry.tableBucket)
    const replica = this.context.replica(entry.tableBucket)
    if (replica === undefined || replica.leaderId !== this.leaderId) {
      entry.needsSync = false
      entry.outOfRange = false
      return
    }
    const current = () => this.#entries.get(key) === entry && replica.leaderId === this.leaderId
    try {
      if (entry.outOfRange) {
        const bounds = await leaderLogBounds(replica, this.leaderId, this.context)
        await replica.runFollowerTask(async () => {
          if (current())
            await handleOutOfRange(replica, bounds, m =>
              this.context.warn(m, undefined, { ...replica.logFields, leader: this.leaderId }),
            )
        })
        entry.outOfRange = false
        // Whatever was cut or restarted, the epochs are reconciled again before fetching.
        entry.needsSync = true
      }
      const queries = leaderEpochQueries(entry.tableBucket, this.leaderId, this.context)
      // Ask without holding the replica (the leader may be slow to answer); apply in its queue.
      const plan = await planSync(replica.logTablet, replica.epochCache, queries, replica.leaderEpoch)
      const result = await replica.runFollowerTask(async () =>
        current() ? applySync(replica.logTablet, replica.epochCache, plan) : undefined,
      )
      if (result === undefined || this.#entries.get(key) !== entry) return
      entry.needsSync = false
      if (result.truncatedTo !== null) {
        this.context.warn(
          `${replica.name} diverged from leader ${this.leaderId}: truncated to ${result.truncatedTo}`,
        )
      }
    } catch (e) {
      this.context.warn(`reconciling ${replica.name} with leader ${this.leaderId} failed`, e, {
        ...replica.logFields,
        leader: this.leaderId,
      })
      this.#backoff([entry])
    }
  }

  async #fetchOnce(entries: readonly FetchEntry[]): Promise<void> {
    const { settings, pool, localServerId } = this.context
    const sent = new Map<FetchEntry, number>()
    const tables = new Map<number, PbFetchLogReqForTableInit>()
    for (const entry of entries) {
      const replica = this.context.replica(entry.tableBucket)
      if (replica === undefined) continue
      const fetchOffset = replica.logTablet.logEndOffset
      sent.set(entry, fetchOffset)
      const { tableId, partitionId, bucket } = entry.tableBucket
      let table = tables.get(tableId)
      if (table === undefined) {
        table = { tableId, projectionPushdownEnabled: false, bucketsReq: [] }
        tables.set(tableId, table)
      }
      table.bucketsReq?.push({
        partitionId,
        bucketId: bucket,
        fetchOffset,
        maxFetchBytes: settings.maxBytesForBucket,
      })
    }
    if (sent.size === 0) return
    const endpoint = await this.context.leaderEndpoint(this.leaderId)
    this.#awaitingLeader = true
    const response = await pool
      .request(
        { ...endpoint, role: 'tablet' },
        'FETCH_LOG',
        {
          followerServerId: localServerId,
          maxBytes: settings.maxBytes,
          minBytes: settings.minBytes,
          maxWaitMs: settings.maxWaitMs,
          tablesReq: [...tables.values()],
        },
        { timeoutMs: settings.maxWaitMs + settings.requestTimeoutMs },
      )
      .finally(() => {
        this.#awaitingLeader = false
      })
    await this.#process(response, sent)
  }

  async #process(response: FetchLogResponse, sent: Map<FetchEntry, number>): Promise<void> {
    const byKey = new Map([...sent.keys()].map(e => [tableBucketKey(e.tableBucket), e]))
    for (const table of response.tablesResp) {
      for (const b of table.bucketsResp) {
        const key = tableBucketKey({
          tableId: table.tableId,
          bucket: b.bucketId,
          ...(b.partitionId === null ? {} : { partitionId: b.partitionId }),
        })
        const entry = byKey.get(key)
        // Removed (or removed and re-added) while the request was in flight: not ours any more.
        if (entry === undefined || this.#entries.get(key) !== entry) continue
        const replica = this.context.replica(entry.tableBucket)
        if (replica === undefined || replica.leaderId !== this.leaderId) continue
        try {
          await replica.runFollowerTask(async () => {
            // Checked again in the follower's queue: a newer leader's work may have run first.
            const current = this.#entries.get(key) === entry && replica.leaderId === this.leaderId
            if (current && !entry.needsSync) await this.#apply(replica, entry, sent.get(entry) ?? -1, b)
          })
        } catch (e) {
          this.context.warn(`replicating ${replica.name} from leader ${this.leaderId} failed`, e, {
            ...replica.logFields,
            leader: this.leaderId,
          })
          this.#backoff([entry])
        }
      }
    }
  }

  async #apply(
    replica: Replica,
    entry: FetchEntry,
    fetchOffset: number,
    b: FetchLogResponse['tablesResp'][number]['bucketsResp'][number],
  ): Promise<void> {
    if (b.errorCode !== null && b.errorCode !== 0) {
      if (b.errorCode === ERRORS.LOG_OFFSET_OUT_OF_RANGE_EXCEPTION.code) {
        entry.outOfRange = true
        return
      }
      this.context.warn(
        `leader ${this.leaderId} refused the fetch of ${replica.name}: ${b.errorMessage}`,
        undefined,
        {
          ...replica.logFields,
          leader: this.leaderId,
        },
      )
      this.#backoff([entry])
      return
    }
    // The log changed under the request (truncation): fetch again from the new end.
    if (replica.logTablet.logEndOffset !== fetchOffset) return
    if (b.remoteLogFetchInfo !== null) {
      await this.#skipRemoteSegments(replica, b.remoteLogFetchInfo.remoteLogSegments)
      return
    }
    const records = b.records
    if (records !== null && records.length > 0) await replica.appendRecordsToFollower(records)
    if (b.highWatermark !== null) replica.updateFollowerHighWatermark(b.highWatermark)
  }

  /**
   * The leader answered with remote segments: what this follower lacks is no longer on the
   * leader's disk. Followers keep no data below the leader's local log, so the log restarts at the
   * end of the remote segments (and the epoch history with it).
   */
  async #skipRemoteSegments(
    replica: Replica,
    segments: readonly { readonly remoteLogEndOffset: number }[],
  ): Promise<void> {
    const end = segments.reduce((max, s) => Math.max(max, s.remoteLogEndOffset), -1)
    if (end <= replica.logTablet.logEndOffset) return
    this.context.warn(
      `restarting ${replica.name} at ${end}, the end of the leader's remote log segments`,
      undefined,
      {
        ...replica.logFields,
        leader: this.leaderId,
      },
    )
    await replica.logTablet.truncateFullyAndStartAt(end)
    replica.epochCache.clear()
    await replica.epochCache.flush()
  }

  #backoff(entries: readonly FetchEntry[]): void {
    const until = Date.now() + this.context.settings.backoffMs
    for (const e of entries) e.delayedUntilMs = until
  }

  #sleep(ms: number): Promise<void> {
    return new Promise(resolve => {
      const timer = setTimeout(done, Math.max(0, ms))
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    })
  }
}
