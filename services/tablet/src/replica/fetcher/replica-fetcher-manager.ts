import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey } from '@sluice/core/metadata'
import { ReplicaFetcher, type ReplicaFetcherContext } from './replica-fetcher.js'

/**
 * The follower side of replication (Fluss's `ReplicaFetcherManager`): one ReplicaFetcher per leader
 * server, each batching every bucket this server follows from that leader.
 */
export class ReplicaFetcherManager {
  readonly #fetchers = new Map<number, ReplicaFetcher>()
  /** Which leader each followed bucket is fetched from. */
  readonly #leaderOf = new Map<string, number>()

  constructor(private readonly context: ReplicaFetcherContext) {}

  /** Starts fetching each bucket from its leader (replacing an earlier assignment). */
  addFetcherForBuckets(buckets: ReadonlyMap<number, readonly TableBucket[]>): void {
    for (const [leaderId, list] of buckets) {
      this.removeFetcherForBuckets(list)
      let fetcher = this.#fetchers.get(leaderId)
      if (fetcher === undefined) {
        fetcher = new ReplicaFetcher(leaderId, this.context)
        this.#fetchers.set(leaderId, fetcher)
      }
      fetcher.addBuckets(list)
      for (const b of list) this.#leaderOf.set(tableBucketKey(b), leaderId)
    }
  }

  removeFetcherForBuckets(buckets: readonly TableBucket[]): void {
    for (const b of buckets) {
      const key = tableBucketKey(b)
      const leaderId = this.#leaderOf.get(key)
      if (leaderId === undefined) continue
      this.#fetchers.get(leaderId)?.removeBuckets([b])
      this.#leaderOf.delete(key)
    }
  }

  /** The leader a bucket is fetched from, if it is followed. */
  leaderOf(bucket: TableBucket): number | undefined {
    return this.#leaderOf.get(tableBucketKey(bucket))
  }

  /** Stops fetchers left without buckets. */
  async shutdownIdleFetchers(): Promise<void> {
    const idle = [...this.#fetchers.values()].filter(f => f.bucketCount === 0)
    for (const f of idle) this.#fetchers.delete(f.leaderId)
    await Promise.all(idle.map(f => f.stop()))
  }

  async shutdown(): Promise<void> {
    const all = [...this.#fetchers.values()]
    this.#fetchers.clear()
    this.#leaderOf.clear()
    await Promise.all(all.map(f => f.stop()))
  }
}
