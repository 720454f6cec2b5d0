import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, type TablePath, tableBucketKey } from '@sluice/core/metadata'
import { exponentialBackoffMs } from '@sluice/core/util'
import type { LookupOptions } from '../client-options.js'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import { type LookupKind, type LookupQuery, LookupQueue } from './lookup-queue.js'
import { type BucketAnswer, type BucketQueries, sendLookupRequest } from './lookup-request.js'

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
          this.#queue.putBack(groups.slice(i).flatMap(g => g.buckets.flatMap(b => b.queries)))
          break
        }
        this.#send(group.leader, group.kind, group.buckets)
      }
    }
    this.#scheduleAt(nextCheckMs)
  }

  /**
   * The queries grouped by leader, kind and table, each group by bucket. The queries of a Lookuper
   * share one TableBucket object per bucket, so they are first grouped by kind and that object: the
   * leader and the map keys are then worked out once per bucket rather than once per query.
   */
  #groupByLeader(queries: readonly LookupQuery[]): LeaderGroup[] {
    const byBucket = {
      LOOKUP: new Map<TableBucket, LookupQuery[]>(),
      PREFIX_LOOKUP: new Map<TableBucket, LookupQuery[]>(),
    }
    for (const q of queries) {
      const sameBucket = byBucket[q.kind]
      const list = sameBucket.get(q.bucket)
      if (list === undefined) sameBucket.set(q.bucket, [q])
      else list.push(q)
    }
    const groups = new Map<string, LeaderGroup>()
    for (const kind of LOOKUP_KINDS) {
      for (const [bucket, bucketQueries] of byBucket[kind]) {
        const leader = this.#metadata.cluster.leaderFor(bucket)
        if (leader === undefined) {
          const error = new FlussError(
            'LEADER_NOT_AVAILABLE_EXCEPTION',
            `No leader is known for ${describe(bucket)}`,
          )
          for (const q of bucketQueries) {
            this.#refresh(q)
            this.#retry(q, error)
          }
          continue
        }
        const key = `${leader.id}|${kind}|${bucket.tableId}`
        let group = groups.get(key)
        if (group === undefined) {
          group = { leader, kind, buckets: [], byKey: new Map() }
          groups.set(key, group)
        }
        addBucket(group, bucket, bucketQueries)
      }
    }
    return [...groups.values()]
  }

  #send(leader: ServerNode, kind: LookupKind, buckets: readonly BucketQueries[]): void {
    this.#inflight++
    sendLookupRequest(this.#metadata, leader, kind, buckets)
      .then(
        answers => {
          for (const answer of answers) this.#onAnswer(answer)
        },
        e => {
          const error = toFlussError(e)
          for (const b of buckets) for (const q of b.queries) this.#onError(q, error)
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
    const { queries, values } = answer
    for (let i = 0; i < queries.length; i++) queries[i].resolve(values[i])
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
    query.retryAtMs =
      Date.now() + exponentialBackoffMs(query.retries, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
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

const LOOKUP_KINDS: readonly LookupKind[] = ['LOOKUP', 'PREFIX_LOOKUP']

/** The queries of one leader, kind and table, by bucket (each bucket once). */
interface LeaderGroup {
  readonly leader: ServerNode
  readonly kind: LookupKind
  readonly buckets: BucketQueries[]
  /** The groups of `buckets` by `tableBucketKey`. */
  readonly byKey: Map<string, BucketQueries>
}

/** Adds queries of a bucket to a leader group, merging them with earlier queries of that bucket. */
function addBucket(group: LeaderGroup, bucket: TableBucket, queries: LookupQuery[]): void {
  const key = tableBucketKey(bucket)
  const existing = group.byKey.get(key)
  if (existing === undefined) {
    const entry = { bucket, queries }
    group.byKey.set(key, entry)
    group.buckets.push(entry)
  } else {
    for (const q of queries) existing.queries.push(q)
  }
}

function describe(bucket: TableBucket): string {
  return `bucket ${tableBucketKey(bucket)}`
}
