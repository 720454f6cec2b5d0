import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { FetchLogResponse } from '@sluice/core/rpc'
import { exponentialBackoffMs } from '@sluice/core/util'
import type { OffsetSpec } from '../admin/list-offsets.js'
import type { ScannerOptions } from '../client-options.js'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { tableName } from '../table/key-encoding.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import type { LogBatchDecoding } from './batch-decoding.js'
import { type BatchDecoderOptions, CompletedFetch } from './completed-fetch.js'
import {
  EARLIEST_OFFSET,
  fetchError,
  fetchLogRequest,
  REFRESH_ERRORS,
  remoteOnlyError,
  UNRESOLVED_OFFSET,
} from './fetch-log-request.js'
import { type ScanRecord, ScanRecords } from './scan-records.js'
import { SubscriptionResolver } from './subscription-resolver.js'

/** What a fetcher reads: the table, its projection, and the connection's metadata and options. */
export interface FetchContext {
  readonly metadata: MetadataUpdater
  readonly info: TableInfo
  readonly options: ScannerOptions
  readonly requestTimeoutMs: number
  /** Ascending column indexes pushed down to the server, or undefined for every column. */
  readonly projectedFields: readonly number[] | undefined
  readonly decoder: BatchDecoderOptions & { readonly decoding: LogBatchDecoding }
}

/** A subscribed bucket and the next offset to read from it. */
export interface Subscription {
  readonly bucket: TableBucket
  /** Negative while the start offset is looked up (EARLIEST_OFFSET or UNRESOLVED_OFFSET). */
  offset: number
  highWatermark: number
  /** How the start offset is looked up while `offset` is negative. */
  readonly startAt: OffsetSpec | undefined
}

/** Told which partitions turned out to be dropped; their subscriptions have ended. */
export type PartitionsGoneHandler = (partitionIds: readonly number[]) => void

/**
 * Fetches the subscribed buckets of one table (Fluss's `LogFetcher`): one FETCH_LOG per leader with
 * all its buckets, at most one in flight per leader, and at most one unconsumed answer buffered per
 * bucket (a bucket with buffered records is not fetched again), which bounds memory by
 * `client.scanner.log.fetch.max-bytes` per leader. Answers are decoded lazily by `collect`.
 *
 * A leader whose fetchable buckets have all reached their high watermark is not fetched while
 * other buckets of that leader still have buffered records: such a fetch would find no data, the
 * server would hold it for `client.scanner.log.fetch.wait-max-time`, and, being the leader's only
 * fetch in flight, it would keep the buffered buckets' next data waiting that long once they are
 * consumed. The caught-up buckets join the leader's next fetch, sent when its buffer drains.
 *
 * A partition found dropped (PARTITION_NOT_EXISTS while refreshing its metadata or looking up a
 * start offset) ends the subscriptions of all its buckets: the partitions-gone handler is told, or,
 * without one, the next poll throws PARTITION_NOT_EXISTS once.
 */
export class LogFetcher {
  readonly #ctx: FetchContext
  readonly #subscriptions = new Map<string, Subscription>()
  readonly #buffer: CompletedFetch[] = []
  readonly #buffered = new Set<string>()
  readonly #pendingNodes = new Set<number>()
  /** Consecutive failed fetches per leader, and until when that leader is not fetched from. */
  readonly #nodeBackoff = new Map<number, { failures: number; untilMs: number }>()
  readonly #resolver: SubscriptionResolver
  #pendingError: FlussError | undefined
  #onPartitionsGone: PartitionsGoneHandler | undefined
  #waiter: (() => void) | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false

  constructor(ctx: FetchContext) {
    this.#ctx = ctx
    this.#resolver = new SubscriptionResolver({
      ctx,
      subscriptions: this.#subscriptions,
      isClosed: () => this.#closed,
      partitionsGone: ids => this.#partitionsGone(ids),
      fail: error => {
        this.#pendingError = error
      },
      wakeup: () => this.wakeup(),
      notifyAt: atMs => this.#notifyAt(atMs),
    })
  }

  get subscribedBuckets(): TableBucket[] {
    return [...this.#subscriptions.values()].map(s => s.bucket)
  }

  /** The next offset to read for a bucket (EARLIEST_OFFSET while unresolved), or undefined. */
  offsetOf(bucket: TableBucket): number | undefined {
    return this.#subscriptions.get(tableBucketKey(bucket))?.offset
  }

  /** Reads a bucket from `offset` (EARLIEST_OFFSET: from its log start). */
  subscribe(bucket: TableBucket, offset: number): void {
    this.#subscribe(bucket, offset, offset === EARLIEST_OFFSET ? 'earliest' : undefined)
  }

  /** Reads a bucket from the offset `spec` names, looked up with LIST_OFFSETS before fetching. */
  subscribeAt(bucket: TableBucket, spec: OffsetSpec): void {
    this.#subscribe(bucket, spec === 'earliest' ? EARLIEST_OFFSET : UNRESOLVED_OFFSET, spec)
  }

  unsubscribe(bucket: TableBucket): void {
    const key = tableBucketKey(bucket)
    this.#dropBuffered(key)
    this.#subscriptions.delete(key)
  }

  /** Ends the subscriptions of every bucket of a partition (records not yet polled are dropped). */
  unsubscribePartition(partitionId: number): void {
    for (const [key, sub] of this.#subscriptions) {
      if (sub.bucket.partitionId !== partitionId) continue
      this.#dropBuffered(key)
      this.#subscriptions.delete(key)
    }
  }

  /** Who is told about dropped partitions; undefined makes the next poll throw PARTITION_NOT_EXISTS. */
  setPartitionsGoneHandler(handler: PartitionsGoneHandler | undefined): void {
    this.#onPartitionsGone = handler
  }

  /** Sends a fetch to every leader that has fetchable buckets and no fetch in flight. */
  sendFetches(): void {
    if (this.#closed) return
    this.#resolver.resolveStarts()
    const cluster = this.#ctx.metadata.cluster
    const nowMs = Date.now()
    const byLeader = new Map<ServerNode, Subscription[]>()
    const leadersWithBuffered = new Set<number>()
    let unknownLeader = false
    for (const [key, sub] of this.#subscriptions) {
      if (sub.offset < 0) continue
      const leader = cluster.leaderFor(sub.bucket)
      if (this.#buffered.has(key)) {
        if (leader !== undefined) leadersWithBuffered.add(leader.id)
        continue
      }
      if (leader === undefined) {
        unknownLeader = true
        continue
      }
      if (this.#pendingNodes.has(leader.id)) continue
      const backoffUntilMs = this.#nodeBackoff.get(leader.id)?.untilMs ?? 0
      if (backoffUntilMs > nowMs) {
        this.#notifyAt(backoffUntilMs)
        continue
      }
      const list = byLeader.get(leader)
      if (list === undefined) byLeader.set(leader, [sub])
      else list.push(sub)
    }
    if (unknownLeader) this.#resolver.refresh()
    for (const [leader, subs] of byLeader) {
      if (leadersWithBuffered.has(leader.id) && subs.every(isCaughtUp)) continue
      this.#fetch(leader, subs)
    }
  }

  /** Takes up to `max` buffered records; throws a bucket's fetch error when it comes first. */
  collect(max: number): ScanRecords {
    if (this.#pendingError !== undefined) {
      const error = this.#pendingError
      this.#pendingError = undefined
      throw error
    }
    const byBucket = new Map<string, { bucket: TableBucket; records: ScanRecord[] }>()
    let remaining = max
    while (remaining > 0 && this.#buffer.length > 0) {
      const fetch = this.#buffer[0]
      const key = tableBucketKey(fetch.tableBucket)
      const sub = this.#subscriptions.get(key)
      if (sub === undefined || sub.offset !== fetch.nextFetchOffset) {
        this.#shiftBuffer()
        continue
      }
      if (fetch.failed) {
        if (byBucket.size > 0) break
        this.#shiftBuffer()
        throw fetch.error
      }
      const records = fetch.take(remaining)
      sub.offset = fetch.nextFetchOffset
      if (records.length > 0) {
        const entry = byBucket.get(key)
        if (entry === undefined) byBucket.set(key, { bucket: sub.bucket, records })
        else for (const r of records) entry.records.push(r)
        remaining -= records.length
      }
      if (fetch.isConsumed) this.#shiftBuffer()
    }
    return byBucket.size === 0 ? ScanRecords.EMPTY : new ScanRecords(byBucket)
  }

  /** Resolves at the next fetch answer, metadata refresh or offset lookup, at `wakeup()`, or after `timeoutMs`. */
  waitForProgress(timeoutMs: number): Promise<void> {
    if (this.#buffer.length > 0 || this.#pendingError !== undefined || this.#closed) return Promise.resolve()
    return new Promise(resolve => {
      const done = (): void => {
        clearTimeout(timer)
        if (this.#waiter === done) this.#waiter = undefined
        resolve()
      }
      const timer = setTimeout(done, timeoutMs)
      this.#waiter = done
    })
  }

  /** Ends a `waitForProgress` early. */
  wakeup(): void {
    const waiter = this.#waiter
    this.#waiter = undefined
    waiter?.()
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#buffer.length = 0
    this.#buffered.clear()
    this.wakeup()
  }

  #fetch(leader: ServerNode, subs: readonly Subscription[]): void {
    const request = fetchLogRequest(this.#ctx, subs)
    const offsets = new Map(subs.map(s => [tableBucketKey(s.bucket), s.offset]))
    this.#pendingNodes.add(leader.id)
    this.#ctx.metadata
      .request(leader, 'FETCH_LOG', request)
      .then(
        response => {
          this.#nodeBackoff.delete(leader.id)
          this.#onResponse(response, offsets)
        },
        error => this.#onRequestError(leader, subs, toFlussError(error)),
      )
      .finally(() => {
        this.#pendingNodes.delete(leader.id)
        this.wakeup()
      })
  }

  #onResponse(response: FetchLogResponse, requestedOffsets: ReadonlyMap<string, number>): void {
    if (this.#closed) return
    const { info, decoder } = this.#ctx
    for (const table of response.tablesResp) {
      if (table.tableId !== info.tableId) continue
      for (const r of table.bucketsResp) {
        const bucket = tableBucket(info.tableId, r.bucketId, r.partitionId ?? undefined)
        const key = tableBucketKey(bucket)
        const sub = this.#subscriptions.get(key)
        const fetchOffset = requestedOffsets.get(key)
        if (
          sub === undefined ||
          fetchOffset === undefined ||
          sub.offset !== fetchOffset ||
          this.#buffered.has(key)
        )
          continue
        if (r.highWatermark !== null) sub.highWatermark = r.highWatermark
        let error =
          r.errorCode === null || r.errorCode === 0
            ? undefined
            : FlussError.fromCode(r.errorCode, r.errorMessage)
        if (error !== undefined && REFRESH_ERRORS.has(error.errorName)) {
          this.#ctx.metadata.invalidate(info.tableId, bucket.partitionId)
          this.#resolver.refresh()
          continue
        }
        if (error === undefined && r.remoteLogFetchInfo !== null && (r.records?.length ?? 0) === 0) {
          error = remoteOnlyError(fetchOffset, r.bucketId, r.remoteLogFetchInfo.remoteLogTabletDir)
        }
        if (error !== undefined) error = fetchError(error, fetchOffset)
        if (error === undefined && (r.records === null || r.records.length === 0)) continue
        const highWatermark = r.highWatermark ?? -1
        this.#buffered.add(key)
        const missing = error === undefined ? decoder.decoding.missing(r.records) : []
        if (missing.length === 0) {
          this.#buffer.push(new CompletedFetch(bucket, fetchOffset, highWatermark, r.records, error, decoder))
          continue
        }
        // Batches written under schema versions not seen yet: load those first (decoding is sync).
        decoder.decoding.load(missing).then(
          () =>
            this.#pushLate(
              new CompletedFetch(bucket, fetchOffset, highWatermark, r.records, undefined, decoder),
            ),
          e =>
            this.#pushLate(
              new CompletedFetch(bucket, fetchOffset, highWatermark, null, toFlussError(e), decoder),
            ),
        )
      }
    }
  }

  #pushLate(fetch: CompletedFetch): void {
    if (this.#closed || !this.#buffered.has(tableBucketKey(fetch.tableBucket))) return
    this.#buffer.push(fetch)
    this.wakeup()
  }

  #onRequestError(leader: ServerNode, subs: readonly Subscription[], error: FlussError): void {
    if (this.#closed) return
    if (!error.retriable) {
      this.#pendingError = error
      return
    }
    const failures = (this.#nodeBackoff.get(leader.id)?.failures ?? 0) + 1
    const delayMs = exponentialBackoffMs(failures, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
    this.#nodeBackoff.set(leader.id, { failures, untilMs: Date.now() + delayMs })
    for (const partitionId of new Set(subs.map(s => s.bucket.partitionId)))
      this.#ctx.metadata.invalidate(this.#ctx.info.tableId, partitionId)
    this.#resolver.refresh()
  }

  #partitionsGone(partitionIds: readonly number[]): void {
    if (partitionIds.length === 0 || this.#closed) return
    for (const id of partitionIds) this.unsubscribePartition(id)
    if (this.#onPartitionsGone !== undefined) {
      this.#onPartitionsGone(partitionIds)
      return
    }
    this.#pendingError ??= new FlussError(
      'PARTITION_NOT_EXISTS',
      `Partition(s) ${partitionIds.join(', ')} of ${tableName(this.#ctx.info)} no longer exist; the subscriptions of their buckets were ended`,
    )
  }

  #notifyAt(atMs: number): void {
    if (this.#timer !== undefined || this.#closed) return
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined
        this.wakeup()
      },
      Math.max(0, atMs - Date.now()),
    )
  }

  #subscribe(bucket: TableBucket, offset: number, startAt: OffsetSpec | undefined): void {
    const key = tableBucketKey(bucket)
    this.#dropBuffered(key)
    this.#subscriptions.set(key, { bucket, offset, highWatermark: -1, startAt })
  }

  #shiftBuffer(): void {
    const fetch = this.#buffer.shift()
    if (fetch !== undefined) this.#buffered.delete(tableBucketKey(fetch.tableBucket))
  }

  #dropBuffered(key: string): void {
    const at = this.#buffer.findIndex(f => tableBucketKey(f.tableBucket) === key)
    if (at >= 0) this.#buffer.splice(at, 1)
    this.#buffered.delete(key)
  }
}

/** Whether a bucket was read up to the high watermark its leader last reported. */
function isCaughtUp(sub: Subscription): boolean {
  return sub.highWatermark >= 0 && sub.offset >= sub.highWatermark
}
