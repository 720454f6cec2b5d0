import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket } from '@sluice/core/metadata'
import { EARLIEST_OFFSET } from './fetch-log-request.js'
import type { LogFetcher } from './log-fetcher.js'
import { ScanRecords } from './scan-records.js'

/**
 * Reads the log of a table bucket by bucket (Fluss's `LogScanner`). Subscribe buckets at an offset,
 * then `poll` repeatedly; each poll returns at most `client.scanner.log.max-poll-records` records
 * and prefetches the next data while the caller works on them. Not for concurrent use: one poll at
 * a time.
 */
export class LogScanner {
  readonly #info: TableInfo
  readonly #fetcher: LogFetcher
  readonly #maxPollRecords: number
  #polling = false
  #wakeupRequested = false
  #closed = false

  readonly #onClosed: ((scanner: LogScanner) => void) | undefined

  constructor(
    info: TableInfo,
    fetcher: LogFetcher,
    maxPollRecords: number,
    onClosed?: (scanner: LogScanner) => void,
  ) {
    this.#info = info
    this.#fetcher = fetcher
    this.#maxPollRecords = maxPollRecords
    this.#onClosed = onClosed
  }

  /** Starts (or moves) reading a bucket at `offset`; for a partitioned table pass the partition id first. */
  subscribe(bucket: number, offset: number): void
  subscribe(partitionId: number, bucket: number, offset: number): void
  subscribe(a: number, b: number, c?: number): void {
    const [bucket, offset] = c === undefined ? [this.#bucket(undefined, a), b] : [this.#bucket(a, b), c]
    if (!Number.isSafeInteger(offset) || (offset < 0 && offset !== EARLIEST_OFFSET)) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Invalid offset ${offset}: expected an offset >= 0 (or EARLIEST_OFFSET)`,
      )
    }
    this.#fetcher.subscribe(bucket, offset)
  }

  /** Starts reading a bucket at its earliest offset (looked up with LIST_OFFSETS). */
  subscribeFromBeginning(bucket: number): void
  subscribeFromBeginning(partitionId: number, bucket: number): void
  subscribeFromBeginning(a: number, b?: number): void {
    if (b === undefined) this.subscribe(a, EARLIEST_OFFSET)
    else this.subscribe(a, b, EARLIEST_OFFSET)
  }

  unsubscribe(bucket: number): void
  unsubscribe(partitionId: number, bucket: number): void
  unsubscribe(a: number, b?: number): void {
    this.#fetcher.unsubscribe(b === undefined ? this.#bucket(undefined, a) : this.#bucket(a, b))
  }

  /** The buckets currently subscribed. */
  subscriptions(): TableBucket[] {
    return this.#fetcher.subscribedBuckets
  }

  /** The next offset a poll reads for a bucket (EARLIEST_OFFSET until resolved), or undefined. */
  position(bucket: number, partitionId?: number): number | undefined {
    return this.#fetcher.offsetOf(tableBucket(this.#info.tableId, bucket, partitionId))
  }

  /**
   * Waits up to `timeoutMs` for records and returns them (empty when none arrived in time, or
   * after `wakeup()`). Throws a bucket's fetch error, e.g. LOG_OFFSET_OUT_OF_RANGE_EXCEPTION when
   * the subscribed offset is outside the log.
   */
  async poll(timeoutMs: number): Promise<ScanRecords> {
    if (this.#closed) throw new FlussError('INVALID_REQUEST', 'The log scanner is closed')
    if (this.#polling)
      throw new FlussError('INVALID_REQUEST', 'Another poll of this log scanner is still running')
    if (!(timeoutMs >= 0)) throw new FlussError('INVALID_REQUEST', `Invalid poll timeout ${timeoutMs}`)
    if (this.#fetcher.subscribedBuckets.length === 0) {
      throw new FlussError('INVALID_REQUEST', 'The log scanner is not subscribed to any bucket')
    }
    this.#polling = true
    this.#wakeupRequested = false
    try {
      const deadlineMs = Date.now() + timeoutMs
      for (;;) {
        const records = this.#fetcher.collect(this.#maxPollRecords)
        this.#fetcher.sendFetches()
        if (!records.isEmpty() || this.#wakeupRequested || this.#closed) return records
        const remainingMs = deadlineMs - Date.now()
        if (remainingMs <= 0) return ScanRecords.EMPTY
        await this.#fetcher.waitForProgress(remainingMs)
      }
    } finally {
      this.#polling = false
    }
  }

  /** Makes a running (or the next) poll return at once. */
  wakeup(): void {
    this.#wakeupRequested = true
    this.#fetcher.wakeup()
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#fetcher.close()
    this.#onClosed?.(this)
  }

  #bucket(partitionId: number | undefined, bucket: number): TableBucket {
    const info = this.#info
    const name = `${info.tablePath.databaseName}.${info.tablePath.tableName}`
    if (info.isPartitioned && partitionId === undefined) {
      throw new FlussError('INVALID_REQUEST', `Table ${name} is partitioned: subscribe with a partition id`)
    }
    if (!info.isPartitioned && partitionId !== undefined) {
      throw new FlussError('TABLE_NOT_PARTITIONED_EXCEPTION', `Table ${name} is not partitioned`)
    }
    if (!Number.isInteger(bucket) || bucket < 0 || bucket >= info.numBuckets) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Bucket ${bucket} is outside 0..${info.numBuckets - 1} of ${name}`,
      )
    }
    if (partitionId !== undefined && !(Number.isSafeInteger(partitionId) && partitionId >= 0)) {
      throw new FlussError('INVALID_REQUEST', `Invalid partition id ${partitionId}`)
    }
    return tableBucket(info.tableId, bucket, partitionId)
  }
}
