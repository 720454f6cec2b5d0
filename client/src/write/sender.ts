import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucket } from '@sluice/core/metadata'
import { exponentialBackoffMs, sleep } from '@sluice/core/util'
import type { ServerNode } from '../metadata/cluster.js'
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS } from '../util/async.js'
import type { IdempotenceManager } from './idempotence-manager.js'
import type { BucketQueue, RecordAccumulator } from './record-accumulator.js'
import type { WriteBatch } from './write-batch.js'

/** The batches of one write request (PRODUCE_LOG or PUT_KV), for the buckets of one leader. */
export interface WriteRequest {
  /** -1, 0 or 1. */
  readonly acks: number
  readonly tableId: number
  readonly timeoutMs: number
  readonly bucketsReq: readonly {
    readonly partitionId: number | null
    readonly bucketId: number
    readonly records: Buffer
  }[]
}

/** One bucket's answer to a write request. */
export interface BucketWriteResult {
  readonly partitionId: number | null
  readonly bucketId: number
  readonly errorCode: number | null
  readonly errorMessage: string | null
  /** The base offset of an appended log batch, or the log end offset after a KV batch. */
  readonly offset: number | null
}

export interface WriteResponse {
  readonly bucketsResp: readonly BucketWriteResult[]
}

/** What the sender needs from the cluster: metadata of one table, the write RPC and INIT_WRITER. */
export interface WriterNetwork {
  readonly tableId: number
  /** The id of a partition, when the metadata knows it. */
  partitionId(partitionName: string): number | undefined
  leaderFor(tb: TableBucket): ServerNode | undefined
  /**
   * Refreshes the table's (or the partition's) metadata, creating a missing partition when that is
   * allowed. Rejects with a non-retriable error when the target cannot be written.
   */
  refresh(partitionName: string | undefined): Promise<void>
  /** Forgets the bucket locations of the table or partition. */
  invalidate(partitionId: number | undefined): void
  /** Sends one write request (PRODUCE_LOG for log tables, PUT_KV for primary-key tables). */
  write(node: ServerNode, request: WriteRequest): Promise<WriteResponse>
  /** INIT_WRITER: a new writer id for idempotent writes. */
  initWriter(): Promise<number>
}

/** The write request settings of one writer. */
export interface SenderOptions {
  /** -1, 0 or 1. */
  readonly acks: number
  readonly retries: number
  readonly requestMaxBytes: number
  readonly requestTimeoutMs: number
  readonly schemaId: number
}

interface Sent {
  readonly queue: BucketQueue<unknown>
  readonly batch: WriteBatch<unknown>
  readonly partitionId: number | undefined
}

/** Least time between two metadata refreshes of the same table or partition. */
const MIN_REFRESH_INTERVAL_MS = RETRY_BACKOFF_BASE_MS
/** INIT_WRITER attempts before the queued batches are failed (Fluss tries 3 times). */
const INIT_WRITER_ATTEMPTS = 3

/**
 * Moves ready batches from the accumulator to the bucket leaders (Fluss's `Sender`), as an event
 * loop rather than a thread: a run is scheduled when rows fill a batch, a batch timeout or retry
 * backoff expires (one timer for the earliest), a response or a metadata refresh arrives, or a flush
 * starts. Each run groups the sendable head batches by leader into write requests (PRODUCE_LOG or
 * PUT_KV) of at most `client.writer.request-max-size`, then handles each bucket's answer: complete,
 * retry (after a metadata refresh on stale-metadata errors) or fail.
 */
export class Sender {
  readonly #accumulator: RecordAccumulator<unknown>
  readonly #network: WriterNetwork
  readonly #idempotence: IdempotenceManager
  readonly #options: SenderOptions
  readonly #onBatchFailed: (error: FlussError, batch: WriteBatch<unknown>) => void
  readonly #refreshing = new Set<string>()
  readonly #lastRefreshMs = new Map<string, number>()
  #scheduled = false
  #timer: NodeJS.Timeout | undefined
  #timerAtMs = Number.POSITIVE_INFINITY
  #initializing = false
  #closed = false

  constructor(
    accumulator: RecordAccumulator<unknown>,
    network: WriterNetwork,
    idempotence: IdempotenceManager,
    options: SenderOptions,
    onBatchFailed: (error: FlussError, batch: WriteBatch<unknown>) => void = () => {},
  ) {
    this.#accumulator = accumulator
    this.#network = network
    this.#idempotence = idempotence
    this.#options = options
    this.#onBatchFailed = onBatchFailed
  }

  /** Schedules a run soon (once, however often it is called before the run). */
  wakeup(): void {
    if (this.#scheduled || this.#closed) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      if (!this.#closed) this.#run()
    })
  }

  /** Stops scheduling runs; answers still arriving are handled. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Fails every batch not yet on the wire. */
  abortQueued(error: FlussError): void {
    for (const queue of this.#accumulator.queues()) {
      for (const batch of queue.batches.splice(0)) this.#fail(queue, batch, error)
    }
  }

  #run(): void {
    if (this.#idempotence.enabled && !this.#idempotence.hasWriterId) {
      if (this.#hasQueued()) this.#initWriterId()
      return
    }
    const { ready, nextCheckMs } = this.#accumulator.ready(Date.now())
    const requests = new Map<number, { leader: ServerNode; sent: Sent[]; bytes: number }>()
    for (const queue of ready) {
      const head = queue.batches[0]
      if (this.#idempotence.isFenced(queue, head)) {
        this.#failFenced(queue, head)
        continue
      }
      const { leader, partitionId } = this.#leaderOf(queue)
      if (leader === undefined) {
        this.#refresh(queue.partitionName)
        continue
      }
      if (!this.#idempotence.canSend(queue, head)) continue
      const request = requests.get(leader.id) ?? { leader, sent: [], bytes: 0 }
      const size = head.estimatedSizeInBytes()
      if (request.sent.length > 0 && request.bytes + size > this.#options.requestMaxBytes) continue
      const batch = this.#accumulator.takeHead(queue)
      this.#idempotence.prepareSend(queue, batch)
      request.bytes += batch.bytes(this.#options.schemaId).length
      this.#accumulator.account(batch)
      request.sent.push({ queue, batch, partitionId })
      requests.set(leader.id, request)
    }
    for (const request of requests.values()) this.#send(request.leader, request.sent)
    if (requests.size > 0) this.wakeup()
    this.#scheduleAt(nextCheckMs)
  }

  #leaderOf(queue: BucketQueue<unknown>): {
    leader: ServerNode | undefined
    partitionId: number | undefined
  } {
    if (queue.partitionName === undefined) {
      return {
        leader: this.#network.leaderFor(tableBucket(this.#network.tableId, queue.bucket)),
        partitionId: undefined,
      }
    }
    const partitionId = this.#network.partitionId(queue.partitionName)
    if (partitionId === undefined) return { leader: undefined, partitionId }
    return {
      leader: this.#network.leaderFor(tableBucket(this.#network.tableId, queue.bucket, partitionId)),
      partitionId,
    }
  }

  /** Fails a batch whose bucket lost its sequence state under the batch's writer id. */
  #failFenced(queue: BucketQueue<unknown>, head: WriteBatch<unknown>): void {
    this.#accumulator.takeHead(queue)
    const message = `An earlier batch of bucket ${queue.bucket} failed; batch ${head.batchSequence} of writer ${head.writerId} is not sent`
    this.#fail(queue, head, new FlussError('OUT_OF_ORDER_SEQUENCE_EXCEPTION', message))
  }

  #send(leader: ServerNode, sent: readonly Sent[]): void {
    const request: WriteRequest = {
      acks: this.#options.acks,
      tableId: this.#network.tableId,
      timeoutMs: this.#options.requestTimeoutMs,
      bucketsReq: sent.map(s => ({
        partitionId: s.partitionId ?? null,
        bucketId: s.queue.bucket,
        records: s.batch.bytes(this.#options.schemaId),
      })),
    }
    for (const s of sent) {
      s.queue.onWire++
      s.batch.attempts++
    }
    let answer: Promise<WriteResponse>
    try {
      answer = this.#network.write(leader, request)
    } catch (e) {
      answer = Promise.reject(e)
    }
    answer
      .then(
        response => this.#onResponse(sent, response),
        error => {
          const failure = toFlussError(error)
          for (const s of sent) this.#onBatchError(s, failure)
        },
      )
      .finally(() => this.wakeup())
  }

  #onResponse(sent: readonly Sent[], response: WriteResponse): void {
    const byBucket = new Map(sent.map(s => [`${s.partitionId ?? '-'}:${s.queue.bucket}`, s]))
    for (const r of response.bucketsResp) {
      const key = `${r.partitionId ?? '-'}:${r.bucketId}`
      const s = byBucket.get(key)
      if (s === undefined) continue
      byBucket.delete(key)
      if (r.errorCode !== null && r.errorCode !== 0)
        this.#onBatchError(s, FlussError.fromCode(r.errorCode, r.errorMessage))
      else this.#onBatchSuccess(s, r.offset ?? -1)
    }
    for (const s of byBucket.values()) {
      this.#onBatchError(
        s,
        new FlussError(
          'UNKNOWN_SERVER_ERROR',
          `The write response has no result for bucket ${s.queue.bucket}`,
        ),
      )
    }
  }

  #onBatchSuccess(s: Sent, batchOffset: number): void {
    s.queue.onWire--
    this.#idempotence.onSuccess(s.queue, s.batch)
    this.#accumulator.complete(s.batch, batchOffset, s.partitionId)
  }

  #onBatchError(s: Sent, error: FlussError): void {
    const attemptsLeft = this.#options.retries - (s.batch.attempts - 1)
    const decision = this.#idempotence.onError(s.queue, s.batch, error, attemptsLeft)
    if (decision === 'success') {
      this.#onBatchSuccess(s, -1)
      return
    }
    s.queue.onWire--
    if (decision === 'fail' || this.#closed) {
      this.#fail(s.queue, s.batch, error)
      return
    }
    if (error.staleMetadata) {
      this.#network.invalidate(s.partitionId)
      this.#refresh(s.queue.partitionName)
    }
    const delayMs = exponentialBackoffMs(s.batch.attempts, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS)
    this.#accumulator.reEnqueue(s.queue, s.batch, Date.now() + delayMs)
  }

  #fail(queue: BucketQueue<unknown>, batch: WriteBatch<unknown>, error: FlussError): void {
    this.#idempotence.onFailure(queue, batch)
    this.#accumulator.fail(batch, error)
    this.#onBatchFailed(error, batch)
  }

  #refresh(partitionName: string | undefined): void {
    const key = partitionName ?? ''
    if (this.#refreshing.has(key) || this.#closed) return
    const nowMs = Date.now()
    const earliestMs = (this.#lastRefreshMs.get(key) ?? 0) + MIN_REFRESH_INTERVAL_MS
    if (nowMs < earliestMs) {
      this.#scheduleAt(earliestMs)
      return
    }
    this.#refreshing.add(key)
    this.#lastRefreshMs.set(key, nowMs)
    this.#network
      .refresh(partitionName)
      .catch(e => {
        const error = toFlussError(e)
        if (error.retriable) return
        for (const queue of this.#accumulator.queues()) {
          if (queue.partitionName !== partitionName) continue
          for (const batch of queue.batches.splice(0)) this.#fail(queue, batch, error)
        }
      })
      .finally(() => {
        this.#refreshing.delete(key)
        this.wakeup()
      })
  }

  #initWriterId(): void {
    if (this.#initializing) return
    this.#initializing = true
    const attempt = async (): Promise<void> => {
      for (let i = 1; ; i++) {
        try {
          this.#idempotence.setWriterId(await this.#network.initWriter())
          return
        } catch (e) {
          const error = toFlussError(e)
          if (i >= INIT_WRITER_ATTEMPTS || !error.retriable) return this.abortQueued(error)
          await sleep(exponentialBackoffMs(i, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_MAX_MS))
        }
      }
    }
    void attempt().finally(() => {
      this.#initializing = false
      this.wakeup()
    })
  }

  #hasQueued(): boolean {
    for (const queue of this.#accumulator.queues()) if (queue.batches.length > 0) return true
    return false
  }

  #scheduleAt(atMs: number): void {
    if (!Number.isFinite(atMs) || this.#closed) return
    if (this.#timer !== undefined && this.#timerAtMs <= atMs) return
    clearTimeout(this.#timer)
    this.#timerAtMs = atMs
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined
        this.#timerAtMs = Number.POSITIVE_INFINITY
        this.wakeup()
      },
      Math.max(0, atMs - Date.now()),
    )
  }
}
