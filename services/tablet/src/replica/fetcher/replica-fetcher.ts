import { ERRORS } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey } from '@sluice/core/metadata'
import type { ConnectionPool, FetchLogResponse, PbFetchLogReqForTableInit } from '@sluice/core/rpc'
import type { Replica } from '../replica.js'
import { handleOutOfRange } from './out-of-range.js'

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
  warn(message: string, error?: unknown): void
}

interface FetchEntry {
  readonly tableBucket: TableBucket
  /** Not fetched before this time (backoff after an error). */
  delayedUntilMs: number
}

/**
 * Replicates the buckets this server follows from one leader server (Fluss's
 * `ReplicaFetcherThread`): one async loop sending FETCH_LOG with follower_server_id = own id and
 * each bucket's log end offset as fetch offset, appending what comes back and taking the leader's
 * high watermark. Buckets that fail back off; so does the whole loop when the request fails.
 */
export class ReplicaFetcher {
  readonly #entries = new Map<string, FetchEntry>()
  #running: Promise<void> | undefined
  #stopped = false
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
      this.#entries.set(tableBucketKey(tableBucket), { tableBucket, delayedUntilMs: 0 })
    }
    this.#running ??= this.#run()
    this.#wake?.()
  }

  /** Stops fetching these buckets; a response already in flight for them is discarded. */
  removeBuckets(buckets: readonly TableBucket[]): void {
    for (const b of buckets) this.#entries.delete(tableBucketKey(b))
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#wake?.()
    await this.#running
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
      try {
        await this.#fetchOnce(ready)
      } catch (e) {
        this.context.warn(`fetch from leader ${this.leaderId} failed`, e)
        this.#backoff(ready)
        await this.#sleep(this.context.settings.backoffMs)
      }
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
    const response = await pool.request(
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
          await this.#apply(replica, entry, sent.get(entry) ?? -1, b)
        } catch (e) {
          this.context.warn(`replicating ${replica.name} from leader ${this.leaderId} failed`, e)
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
        await handleOutOfRange(replica, this.leaderId, this.context)
        return
      }
      this.context.warn(`leader ${this.leaderId} refused the fetch of ${replica.name}: ${b.errorMessage}`)
      this.#backoff([entry])
      return
    }
    // The log changed under the request (truncation): fetch again from the new end.
    if (replica.logTablet.logEndOffset !== fetchOffset) return
    const records = b.records
    if (records !== null && records.length > 0) await replica.appendRecordsToFollower(records)
    if (b.highWatermark !== null) replica.updateFollowerHighWatermark(b.highWatermark)
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
