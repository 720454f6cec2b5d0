import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableInfo, tableBucket } from '@sluice/core/metadata'
import type { OffsetSpec } from '../admin/list-offsets.js'
import type { PartitionInfo } from '../admin/partition-info.js'
import type { LogFetcher } from './log-fetcher.js'

/** Where a scanner learns the partitions of its table. */
export interface PartitionSource {
  /** The table's partitions now (Admin.listPartitionInfos). */
  readonly list: () => Promise<PartitionInfo[]>
  /** `client.scanner.partition.discovery-interval`: the default listing interval (0 = once). */
  readonly discoveryIntervalMs: number
}

/**
 * Keeps a scanner subscribed to every bucket of every partition of its table (the partition
 * discovery of Fluss's Flink source). Listings run one at a time, driven by the scanner's polls,
 * every `intervalMs`: a new partition is subscribed from its earliest offset, a partition no longer
 * listed (or reported dropped by the fetcher) has its subscriptions ended. Partition ids are never
 * reused, so a dropped id is remembered until a listing started after the drop no longer shows it:
 * an answer read before the drop cannot subscribe it again.
 */
export class PartitionDiscovery {
  readonly #info: TableInfo
  readonly #fetcher: LogFetcher
  readonly #list: () => Promise<PartitionInfo[]>
  readonly #intervalMs: number
  /** Subscribed partitions by id. */
  readonly #partitions = new Map<number, PartitionInfo>()
  /** Dropped partition id → the number of listings started when it was found dropped. */
  readonly #dropped = new Map<number, number>()
  #listingsStarted = 0
  #listing = false
  #nextListingAtMs = Number.POSITIVE_INFINITY
  #error: FlussError | undefined
  #closed = false

  constructor(
    info: TableInfo,
    fetcher: LogFetcher,
    list: () => Promise<PartitionInfo[]>,
    intervalMs: number,
  ) {
    this.#info = info
    this.#fetcher = fetcher
    this.#list = list
    this.#intervalMs = intervalMs
  }

  /** Lists the partitions and subscribes every bucket of each at `spec`; throws when listing fails. */
  async start(spec: OffsetSpec): Promise<void> {
    const listing = ++this.#listingsStarted
    const partitions = await this.#list()
    this.#apply(partitions, listing, spec)
    this.#scheduleNext()
  }

  /** The partitions currently subscribed, by id. */
  get partitions(): PartitionInfo[] {
    return [...this.#partitions.values()].sort((a, b) => a.partitionId - b.partitionId)
  }

  /** Starts a listing when one is due; its outcome wakes the fetcher. */
  maybeDiscover(nowMs: number): void {
    if (this.#closed || this.#listing || nowMs < this.#nextListingAtMs) return
    this.#listing = true
    const listing = ++this.#listingsStarted
    this.#list()
      .then(partitions => this.#apply(partitions, listing, 'earliest'))
      .catch(e => {
        const error = toFlussError(e)
        // A retriable failure (a server restarting) is retried at the next interval.
        if (!error.retriable) this.#error = error
      })
      .finally(() => {
        this.#listing = false
        this.#scheduleNext()
        this.#fetcher.wakeup()
      })
  }

  /** Milliseconds until the next listing is due (infinite while one runs or none is planned). */
  msUntilDue(nowMs: number): number {
    return this.#listing ? Number.POSITIVE_INFINITY : Math.max(0, this.#nextListingAtMs - nowMs)
  }

  /** The failure of the last listing, once. */
  takeError(): FlussError | undefined {
    const error = this.#error
    this.#error = undefined
    return error
  }

  /** Forgets partitions the fetcher found dropped (it has already ended their subscriptions). */
  partitionsGone(partitionIds: readonly number[]): void {
    for (const id of partitionIds) {
      this.#partitions.delete(id)
      this.#dropped.set(id, this.#listingsStarted)
    }
  }

  close(): void {
    this.#closed = true
  }

  #apply(listed: readonly PartitionInfo[], listing: number, spec: OffsetSpec): void {
    if (this.#closed) return
    const ids = new Set(listed.map(p => p.partitionId))
    for (const [id, droppedAt] of this.#dropped)
      if (droppedAt < listing && !ids.has(id)) this.#dropped.delete(id)
    for (const id of [...this.#partitions.keys()]) {
      if (ids.has(id)) continue
      this.#partitions.delete(id)
      this.#dropped.set(id, this.#listingsStarted)
      this.#fetcher.unsubscribePartition(id)
    }
    const { tableId, numBuckets } = this.#info
    for (const p of listed) {
      if (this.#partitions.has(p.partitionId) || this.#dropped.has(p.partitionId)) continue
      this.#partitions.set(p.partitionId, p)
      for (let b = 0; b < numBuckets; b++)
        this.#fetcher.subscribeAt(tableBucket(tableId, b, p.partitionId), spec)
    }
  }

  #scheduleNext(): void {
    this.#nextListingAtMs = this.#intervalMs > 0 ? Date.now() + this.#intervalMs : Number.POSITIVE_INFINITY
  }
}

/** Checks a discovery interval given to `subscribeAllPartitions`. */
export function checkDiscoveryInterval(intervalMs: number): number {
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 0) {
    throw new FlussError(
      'INVALID_REQUEST',
      `Invalid partition discovery interval ${intervalMs}: expected milliseconds >= 0 (0 lists the partitions once)`,
    )
  }
  return intervalMs
}
