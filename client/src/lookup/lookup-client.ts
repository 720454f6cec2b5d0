import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, type TablePath, tableBucketKey } from '@sluice/core/metadata'
import type { LookupOptions } from '../client-options.js'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { backoffMs, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import { type LookupKind, type LookupQuery, LookupQueue } from './lookup-queue.js'
import { type BucketAnswer, sendLookupRequest } from './lookup-request.js'

/**
 * Sends the lookups of one connection (Fluss's `LookupClient` and `LookupSender`), as an event loop:
 * queued keys are drained in batches (see LookupQueue), grouped by bucket leader and kind, and each
 * group goes out as one LOOKUP or PREFIX_LOOKUP request carrying all its buckets; at most
 * `client.lookup.max-inflight-requests` requests are awaiting answers. Keys of buckets whose leader
 * is unknown, or whose answer was a retriable error, are retried with backoff (up to
 * `client.lookup.max-retries` times) after a metadata refresh when the error says the metadata is
 * stale.
 */
export class LookupClient {
  readonly #metadata: MetadataUpdater
  readonly #options: LookupOptions
  readonly #queue: LookupQueue
  readonly #refreshing = new Set<string>()
  #inflight = 0
  #scheduled = false
  #timer: NodeJS.Timeout | undefined
  #timerAtMs = Number.POSITIVE_INFINITY
  #closed = false

  constructor(metadata: MetadataUpdater, options: LookupOptions) {
    this.#metadata = metadata
    this.#options = options
    this.#queue = new LookupQueue(options.queueSize, options.maxBatchSize, options.batchTimeoutMs)
  }

  /** Queries waiting to be sent. */
  get queued(): number {
    return this.#queue.size
  }

  /**
   * Looks up one encoded key in a bucket: resolves with the stored values (none when absent).
   * Rejects with RESOURCE_EXHAUSTED at once when `client.lookup.queue-size` lookups are waiting.
   */
  lookup(kind: LookupKind, tablePath: TablePath, bucket: TableBucket, key: Buffer): Promise<Buffer[]> {
    if (this.#closed) return Promise.reject(new FlussError('INVALID_REQUEST', 'The connection is closed'))
    return new Promise<Buffer[]>((resolve, reject) => {
      const nowMs = Date.now()
      const query = {
        kind,
        tablePath,
        bucket,
        key,
        resolve,
        reject,
        queuedAtMs: nowMs,
        retries: 0,
        retryAtMs: 0,
      }
      if (!this.#queue.offer(query)) {
        reject(
          new FlussError(
            'RESOURCE_EXHAUSTED',
            `${this.#queue.capacity} lookups are already waiting (client.lookup.queue-size): wait for some to complete`,
          ),
        )
        return
      }
      this.#scheduleAt(
        this.#queue.size >= this.#options.maxBatchSize ? nowMs : nowMs + this.#options.batchTimeoutMs,
      )
    })
  }

  /** Fails every lookup not yet sent; answers still due are handled. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#timer)
    const error = new FlussError('NETWORK_EXCEPTION', 'The connection was closed before the lookup was sent')
    for (const q of this.#queue.removeAll()) q.reject(error)
  }

  #run(): void {
    if (this.#closed) return
    let nextCheckMs = Number.POSITIVE_INFINITY
    while (this.#inflight < this.#options.maxInflightRequests) {
      const drained = this.#queue.drain(Date.now())
      nextCheckMs = drained.nextCheckMs
      if (drained.queries.length === 0) break
      const groups = this.#groupByLeader(drained.queries)
      for (const [i, group] of groups.entries()) {
        if (this.#inflight >= this.#options.maxInflightRequests) {
          this.#queue.putBack(groups.slice(i).flatMap(g => g.queries))
          break
        }
        this.#send(group.leader, group.kind, group.queries)
      }
    }
    this.#scheduleAt(nextCheckMs)
  }

  #groupByLeader(queries: readonly LookupQuery[]) {
    const groups = new Map<string, { leader: ServerNode; kind: LookupKind; queries: LookupQuery[] }>()
    for (const q of queries) {
      const leader = this.#metadata.cluster.leaderFor(q.bucket)
      if (leader === undefined) {
        this.#refresh(q)
        this.#retry(
          q,
          new FlussError('LEADER_NOT_AVAILABLE_EXCEPTION', `No leader is known for ${describe(q.bucket)}`),
        )
        continue
      }
      const key = `${leader.id}|${q.kind}|${q.bucket.tableId}`
      const group = groups.get(key)
      if (group === undefined) groups.set(key, { leader, kind: q.kind, queries: [q] })
      else group.queries.push(q)
    }
    return [...groups.values()]
  }

  #send(leader: ServerNode, kind: LookupKind, queries: readonly LookupQuery[]): void {
    this.#inflight++
    sendLookupRequest(this.#metadata, leader, kind, queries)
      .then(
        answers => {
          for (const answer of answers) this.#onAnswer(answer)
        },
        e => {
          const error = toFlussError(e)
          for (const q of queries) this.#onError(q, error)
        },
      )
      .finally(() => {
        this.#inflight--
        this.#scheduleAt(Date.now())
      })
  }

  #onAnswer(answer: BucketAnswer): void {
    if (answer.error !== undefined) {
      for (const q of answer.queries) this.#onError(q, answer.error)
      return
    }
    for (const [i, q] of answer.queries.entries()) q.resolve(answer.values[i])
  }

  #onError(query: LookupQuery, error: FlussError): void {
    if (error.staleMetadata) this.#metadata.invalidate(query.bucket.tableId, query.bucket.partitionId)
    if (!error.retriable) query.reject(error)
    else this.#retry(query, error)
  }

  #retry(query: LookupQuery, error: FlussError): void {
    if (this.#closed || query.retries >= this.#options.maxRetries) {
      query.reject(error)
      return
    }
    query.retries++
    query.retryAtMs = Date.now() + backoffMs(query.retries, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
    this.#queue.retry(query)
    this.#scheduleAt(query.retryAtMs)
  }

  /** Refreshes the bucket locations of a query's table or partition (once at a time for each). */
  #refresh(query: LookupQuery): void {
    const { tableId, partitionId } = query.bucket
    const key = `${tableId}:${partitionId ?? '-'}`
    if (this.#refreshing.has(key)) return
    this.#refreshing.add(key)
    const request =
      partitionId === undefined
        ? { tables: [query.tablePath] }
        : { tables: [query.tablePath], partitionIds: [partitionId] }
    this.#metadata
      .update(request)
      .catch(e => {
        const error = toFlussError(e)
        if (error.retriable) return
        const same = (q: LookupQuery) => q.bucket.tableId === tableId && q.bucket.partitionId === partitionId
        for (const q of this.#queue.removeAll(same)) q.reject(error)
      })
      .finally(() => {
        this.#refreshing.delete(key)
        this.#scheduleAt(Date.now())
      })
  }

  #scheduleAt(atMs: number): void {
    if (!Number.isFinite(atMs) || this.#closed) return
    const nowMs = Date.now()
    if (atMs <= nowMs) {
      if (this.#scheduled) return
      this.#scheduled = true
      setImmediate(() => {
        this.#scheduled = false
        this.#run()
      })
      return
    }
    if (this.#timer !== undefined && this.#timerAtMs <= atMs) return
    clearTimeout(this.#timer)
    this.#timerAtMs = atMs
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#timerAtMs = Number.POSITIVE_INFINITY
      this.#run()
    }, atMs - nowMs)
  }
}

function describe(bucket: TableBucket): string {
  return `bucket ${tableBucketKey(bucket)}`
}
