import type { FlussError } from '@sluice/core/errors'
import { type Deferred, deferred } from '../util/async.js'
import type { BatchFormat } from './batch-format.js'
import { WriteBatch } from './write-batch.js'
import type { WriterMemory } from './writer-memory.js'

/** The batches of one bucket (of one partition, for partitioned tables), oldest first. */
export interface BucketQueue<R = unknown> {
  readonly key: string
  readonly partitionName: string | undefined
  readonly bucket: number
  /** Waiting to be sent, head first; the last one may still be open for rows. */
  readonly batches: WriteBatch<R>[]
  /** Batches of this bucket sent and not yet answered. */
  onWire: number
}

/** Batch shaping: the batch format (log rows or KV records), batch size and timeout. */
export interface AccumulatorOptions<R> {
  readonly format: BatchFormat<R>
  readonly batchSizeBytes: number
  readonly batchTimeoutMs: number
}

/** Where an appended record went, and what the sender must be told. */
export interface AppendOutcome<R = unknown> {
  readonly batch: WriteBatch<R>
  readonly index: number
  /** A batch was opened for this record (the sender must plan its batch timeout). */
  readonly newBatch: boolean
  /** A batch of the bucket filled up and was closed: it is ready to send. */
  readonly batchFull: boolean
}

interface FlushWaiter {
  readonly upTo: number
  readonly deferred: Deferred<void>
}

/**
 * Buffers records into one open batch per bucket (Fluss's `RecordAccumulator`). A batch closes when
 * its estimated encoded size reaches `client.writer.batch-size` (or, for formats with a hard size
 * limit, when the next record does not fit); it is ready to send when closed, when
 * it is older than `client.writer.batch-timeout`, when a flush covers it, or when writer memory is
 * exhausted. Every byte held is accounted in the shared WriterMemory until the batch is done.
 */
export class RecordAccumulator<R = unknown> {
  readonly #options: AccumulatorOptions<R>
  readonly #memory: WriterMemory
  readonly #queues = new Map<string, BucketQueue<R>>()
  /** Batches not yet completed or failed, in id (creation) order. */
  readonly #incomplete = new Map<number, WriteBatch<R>>()
  readonly #flushWaiters: FlushWaiter[] = []
  #nextBatchId = 1
  #flushUpTo = 0
  #closing = false
  #firstError: { readonly batchId: number; readonly error: FlussError } | undefined

  constructor(options: AccumulatorOptions<R>, memory: WriterMemory) {
    this.#options = options
    this.#memory = memory
  }

  get memory(): WriterMemory {
    return this.#memory
  }

  /** Batches created and not yet done. */
  get incompleteCount(): number {
    return this.#incomplete.size
  }

  queues(): IterableIterator<BucketQueue<R>> {
    return this.#queues.values()
  }

  /** Whether the bucket has a batch still open for rows. */
  hasOpenBatch(partitionName: string | undefined, bucket: number): boolean {
    const batches = this.#queues.get(queueKey(partitionName, bucket))?.batches
    return batches !== undefined && batches.length > 0 && batches[batches.length - 1].isOpen
  }

  /** Appends a validated record to the open batch of its bucket (opening one if needed). */
  append(record: R, partitionName: string | undefined, bucket: number, nowMs: number): AppendOutcome<R> {
    const queue = this.#queue(partitionName, bucket)
    let batch: WriteBatch<R> | undefined = queue.batches[queue.batches.length - 1]
    let closedFull = false
    if (batch?.isOpen && !batch.hasRoomFor(record)) {
      this.#close(batch)
      closedFull = true
    }
    let newBatch = false
    if (batch === undefined || !batch.isOpen) {
      batch = new WriteBatch(this.#nextBatchId++, partitionName, bucket, this.#options.format, nowMs)
      queue.batches.push(batch)
      this.#incomplete.set(batch.id, batch)
      newBatch = true
    }
    let index: number
    try {
      index = batch.append(record)
    } finally {
      if (newBatch && batch.recordCount === 0) this.#discardEmpty(queue, batch)
    }
    this.#account(batch)
    const filled = batch.isFull || batch.estimatedSizeInBytes() >= this.#options.batchSizeBytes
    if (filled) this.#close(batch)
    return { batch, index, newBatch, batchFull: filled || closedFull }
  }

  /**
   * Queues whose head batch may be sent now, and the earliest time a waiting head becomes ready
   * (Infinity when none waits on time).
   */
  ready(nowMs: number): { ready: BucketQueue<R>[]; nextCheckMs: number } {
    const ready: BucketQueue<R>[] = []
    let nextCheckMs = Number.POSITIVE_INFINITY
    const exhausted = this.#memory.isFull || this.#closing
    for (const queue of this.#queues.values()) {
      const head = queue.batches[0]
      if (head === undefined) continue
      const readyAtMs =
        head.isOpen && !exhausted && head.id > this.#flushUpTo
          ? head.createdAtMs + this.#options.batchTimeoutMs
          : head.retryAtMs
      if (readyAtMs <= nowMs) ready.push(queue)
      else nextCheckMs = Math.min(nextCheckMs, readyAtMs)
    }
    return { ready, nextCheckMs }
  }

  /** Removes the head batch of a queue for sending, closing it if it is still open. */
  takeHead(queue: BucketQueue<R>): WriteBatch<R> {
    const batch = queue.batches.shift() as WriteBatch<R>
    if (batch.isOpen) this.#close(batch)
    return batch
  }

  /** Puts a batch back for a retry: before every batch with a higher or no sequence. */
  reEnqueue(queue: BucketQueue<R>, batch: WriteBatch<R>, retryAtMs: number): void {
    batch.retryAtMs = retryAtMs
    let at = 0
    while (at < queue.batches.length) {
      const other = queue.batches[at]
      if (!batch.hasSequence || !other.hasSequence || other.batchSequence > batch.batchSequence) break
      at++
    }
    queue.batches.splice(at, 0, batch)
  }

  /** Accounts the bytes a built batch holds now (the header was added when it was first sent). */
  account(batch: WriteBatch<R>): void {
    this.#account(batch)
  }

  complete(batch: WriteBatch<R>, batchOffset: number, partitionId: number | undefined): void {
    if (batch.done) return
    batch.complete(batchOffset, partitionId)
    this.#finish(batch)
  }

  fail(batch: WriteBatch<R>, error: FlussError): void {
    if (batch.done) return
    batch.discard()
    batch.fail(error)
    if (this.#firstError === undefined) this.#firstError = { batchId: batch.id, error }
    this.#finish(batch)
  }

  /** Fails every batch still waiting in a queue (not those on the wire) that `filter` selects. */
  abortQueued(error: FlussError, filter: (queue: BucketQueue<R>) => boolean = () => true): void {
    for (const queue of this.#queues.values()) {
      if (!filter(queue)) continue
      for (const batch of queue.batches.splice(0)) this.fail(batch, error)
    }
  }

  /** Makes every batch created so far ready; returns the flush mark to wait for. */
  beginFlush(): number {
    this.#flushUpTo = this.#nextBatchId - 1
    return this.#flushUpTo
  }

  /** Treats every open batch as ready from now on (the writer is closing). */
  beginClose(): void {
    this.#closing = true
  }

  /**
   * Resolves when every batch up to the flush mark is done; rejects with the first batch error not
   * yet reported by an earlier flush, if it falls under the mark.
   */
  flushed(upTo: number): Promise<void> {
    const waiter = { upTo, deferred: deferred() }
    this.#flushWaiters.push(waiter)
    this.#settleFlushes()
    return waiter.deferred.promise
  }

  #queue(partitionName: string | undefined, bucket: number): BucketQueue<R> {
    const key = queueKey(partitionName, bucket)
    let queue = this.#queues.get(key)
    if (queue === undefined) {
      queue = { key, partitionName, bucket, batches: [], onWire: 0 }
      this.#queues.set(key, queue)
    }
    return queue
  }

  #discardEmpty(queue: BucketQueue<R>, batch: WriteBatch<R>): void {
    queue.batches.pop()
    this.#incomplete.delete(batch.id)
    batch.discard()
    batch.done = true
  }

  #close(batch: WriteBatch<R>): void {
    batch.close()
    this.#account(batch)
  }

  #account(batch: WriteBatch<R>): void {
    const size = batch.done ? 0 : batch.sizeInBytes()
    this.#memory.adjust(size - batch.memoryBytes)
    batch.memoryBytes = size
  }

  #finish(batch: WriteBatch<R>): void {
    this.#account(batch)
    this.#incomplete.delete(batch.id)
    this.#settleFlushes()
  }

  #settleFlushes(): void {
    if (this.#flushWaiters.length === 0) return
    const oldest = this.#incomplete.keys().next()
    const minIncomplete = oldest.done ? Number.POSITIVE_INFINITY : oldest.value
    for (let i = this.#flushWaiters.length - 1; i >= 0; i--) {
      const waiter = this.#flushWaiters[i]
      if (waiter.upTo >= minIncomplete) continue
      this.#flushWaiters.splice(i, 1)
      const failure = this.#firstError
      if (failure !== undefined && failure.batchId <= waiter.upTo) {
        this.#firstError = undefined
        waiter.deferred.reject(failure.error)
      } else {
        waiter.deferred.resolve()
      }
    }
  }
}

function queueKey(partitionName: string | undefined, bucket: number): string {
  return partitionName === undefined ? `${bucket}` : `${partitionName}/${bucket}`
}
