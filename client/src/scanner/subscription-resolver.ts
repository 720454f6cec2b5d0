import { type FlussError, toFlussError } from '@sluice/core/errors'
import { tableBucketKey } from '@sluice/core/metadata'
import type { OffsetSpec } from '../admin/list-offsets.js'
import { RETRY_BACKOFF_BASE_MS } from '../util/async.js'
import { startOffsets } from './fetch-log-request.js'
import type { FetchContext, Subscription } from './log-fetcher.js'
import { refreshPartitions } from './partition-refresh.js'

/** The fetcher state a resolver reads and the ways it reports back. */
export interface ResolverHost {
  readonly ctx: FetchContext
  /** The fetcher's subscriptions; the resolver sets the offsets of those waiting for a start. */
  readonly subscriptions: ReadonlyMap<string, Subscription>
  readonly isClosed: () => boolean
  /** Partitions found dropped: end their subscriptions. */
  readonly partitionsGone: (partitionIds: readonly number[]) => void
  /** A failure the next poll throws. */
  readonly fail: (error: FlussError) => void
  /** Some progress was made: let a waiting poll look again. */
  readonly wakeup: () => void
  /** Wake a waiting poll at this time. */
  readonly notifyAt: (atMs: number) => void
}

/**
 * What a fetcher needs before it can fetch a bucket, found in the background, one task of each kind
 * at a time: the start offsets of buckets subscribed at an offset spec (LIST_OFFSETS), and the
 * leaders of buckets whose leader is unknown (a metadata refresh, at most one per
 * RETRY_BACKOFF_BASE_MS, naming only those buckets' partitions). Both report partitions found
 * dropped instead of failing.
 */
export class SubscriptionResolver {
  readonly #host: ResolverHost
  #refreshing = false
  #lastRefreshMs = 0
  #resolving = false

  constructor(host: ResolverHost) {
    this.#host = host
  }

  /** Refreshes the metadata of the table and of the partitions with unknown leaders. */
  refresh(): void {
    const host = this.#host
    if (this.#refreshing || host.isClosed()) return
    const nowMs = Date.now()
    if (nowMs < this.#lastRefreshMs + RETRY_BACKOFF_BASE_MS) {
      host.notifyAt(this.#lastRefreshMs + RETRY_BACKOFF_BASE_MS)
      return
    }
    this.#refreshing = true
    this.#lastRefreshMs = nowMs
    const { info, metadata } = host.ctx
    // Only partitions whose leaders are unknown: naming a dropped one fails the whole request.
    const unknown = new Set<number>()
    for (const s of host.subscriptions.values()) {
      const partitionId = s.bucket.partitionId
      if (partitionId !== undefined && metadata.cluster.leaderFor(s.bucket) === undefined)
        unknown.add(partitionId)
    }
    refreshPartitions(metadata, info.tablePath, [...unknown])
      .then(gone => host.partitionsGone(gone))
      .catch(e => {
        const error = toFlussError(e)
        if (!error.retriable) host.fail(error)
      })
      .finally(() => {
        this.#refreshing = false
        host.wakeup()
      })
  }

  /** Looks up the start offset of buckets subscribed at an offset spec. */
  resolveStarts(): void {
    const host = this.#host
    if (this.#resolving || host.isClosed()) return
    const pending = [...host.subscriptions.values()]
      .filter(s => s.offset < 0 && s.startAt !== undefined)
      .map(s => ({ bucket: s.bucket, spec: s.startAt as OffsetSpec }))
    if (pending.length === 0) return
    this.#resolving = true
    const { info, metadata, requestTimeoutMs } = host.ctx
    startOffsets(metadata, info, pending, requestTimeoutMs)
      .then(found => {
        const specOf = new Map(pending.map(p => [tableBucketKey(p.bucket), p.spec]))
        for (const [key, offset] of found.offsets) {
          const sub = host.subscriptions.get(key)
          // Not when the bucket was subscribed again meanwhile, at another start.
          if (sub !== undefined && sub.offset < 0 && sub.startAt === specOf.get(key)) sub.offset = offset
        }
        host.partitionsGone(found.gonePartitions)
        if (found.error !== undefined) host.fail(found.error)
      })
      .catch(e => host.fail(toFlussError(e)))
      .finally(() => {
        this.#resolving = false
        host.wakeup()
      })
  }
}
