import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'
import { checkOffsetSpec, type OffsetSpec } from '../admin/list-offsets.js'
import type { PartitionInfo } from '../admin/partition-info.js'
import { EARLIEST_OFFSET } from './fetch-log-request.js'
import type { LogFetcher } from './log-fetcher.js'
import { checkDiscoveryInterval, PartitionDiscovery, type PartitionSource } from './partition-discovery.js'
import { ScanRecords } from './scan-records.js'

/**
 * Reads the log of a table bucket by bucket (Fluss's `LogScanner`). Subscribe buckets at an offset,
 * then `poll` repeatedly; each poll returns at most `client.scanner.log.max-poll-records` records
 * and prefetches the next data while the caller works on them. Not for concurrent use: one poll at
 * a time.
 *
 * A partitioned table can be read without knowing its partitions: `subscribeAllPartitions()`
 * subscribes every bucket of every partition and keeps discovering new ones (and ending dropped
 * ones) while polling.
 */
export class LogScanner {
  readonly #info: TableInfo
  readonly #fetcher: LogFetcher
  readonly #maxPollRecords: number
  #polling = false
  #wakeupRequested = false
  #closed = false
  #discovery: PartitionDiscovery | undefined
  #discoveryStarting = false

  readonly #onClosed: ((scanner: LogScanner) => void) | undefined
  readonly #partitionSource: PartitionSource | undefined
  /** The names of the columns of the rows this scanner returns (its projection), in row order. */
  readonly columnNames: readonly string[]
  /** The columns of the rows this scanner returns (its projection), in row order. */
  readonly rowType: RowType

  constructor(
    info: TableInfo,
    fetcher: LogFetcher,
    maxPollRecords: number,
    onClosed?: (scanner: LogScanner) => void,
    partitionSource?: PartitionSource,
    rowType: RowType = info.rowType,
  ) {
    this.rowType = rowType
    this.columnNames = rowType.fields.map(f => f.name)
    this.#info = info
    this.#fetcher = fetcher
    this.#maxPollRecords = maxPollRecords
    this.#onClosed = onClosed
    this.#partitionSource = partitionSource
  }

  /**
   * Reads every partition of a partitioned table: lists the partitions now and subscribes all their
   * buckets at `offsetSpec` ('earliest', 'latest' or `{ timestamp }`), then, while polling, lists
   * them again every `discoveryIntervalMs` (default `client.scanner.partition.discovery-interval`;
   * 0 = never again). A new partition is read from its earliest offset; a dropped partition's
   * subscriptions end without an error. Throws TABLE_NOT_PARTITIONED_EXCEPTION for a table without
   * partitions, and INVALID_REQUEST for a bad offset spec or interval and when called twice.
   */
  async subscribeAllPartitions(
    offsetSpec: OffsetSpec = 'earliest',
    options: { readonly discoveryIntervalMs?: number } = {},
  ): Promise<void> {
    const info = this.#info
    const name = `${info.tablePath.databaseName}.${info.tablePath.tableName}`
    if (!info.isPartitioned) {
      throw new FlussError('TABLE_NOT_PARTITIONED_EXCEPTION', `Table ${name} is not partitioned`)
    }
    const source = this.#partitionSource
    if (source === undefined || this.#closed || this.#discovery !== undefined || this.#discoveryStarting) {
      throw new FlussError(
        'INVALID_REQUEST',
        `This log scanner of ${name} cannot start partition discovery again`,
      )
    }
    checkOffsetSpec(offsetSpec)
    const intervalMs = checkDiscoveryInterval(options.discoveryIntervalMs ?? source.discoveryIntervalMs)
    const discovery = new PartitionDiscovery(info, this.#fetcher, source.list, intervalMs)
    this.#discoveryStarting = true
    try {
      this.#fetcher.setPartitionsGoneHandler(ids => discovery.partitionsGone(ids))
      await discovery.start(offsetSpec)
      this.#discovery = discovery
    } catch (e) {
      this.#fetcher.setPartitionsGoneHandler(undefined)
      throw e
    } finally {
      this.#discoveryStarting = false
    }
  }

  /** The partitions `subscribeAllPartitions` currently reads (empty without it), by id. */
  discoveredPartitions(): PartitionInfo[] {
    return this.#discovery?.partitions ?? []
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

  /**
   * Reads every bucket of a table without partitions, each from `offset` (default: its earliest
   * offset). A partitioned table is read with `subscribeAllPartitions()` instead (INVALID_REQUEST).
   */
  subscribeAllBuckets(offset: number = EARLIEST_OFFSET): void {
    const info = this.#info
    if (info.isPartitioned) {
      const name = `${info.tablePath.databaseName}.${info.tablePath.tableName}`
      throw new FlussError(
        'INVALID_REQUEST',
        `Table ${name} is partitioned: read all of its buckets with subscribeAllPartitions()`,
      )
    }
    for (let bucket = 0; bucket < info.numBuckets; bucket++) this.subscribe(bucket, offset)
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
   * after `wakeup()`); `objects()` of the result gives rows keyed by column name. Throws a bucket's fetch error, e.g. LOG_OFFSET_OUT_OF_RANGE_EXCEPTION when
   * the subscribed offset is outside the log.
   */
  async poll(timeoutMs: number): Promise<ScanRecords> {
    if (this.#closed) throw new FlussError('INVALID_REQUEST', 'The log scanner is closed')
    if (this.#polling)
      throw new FlussError('INVALID_REQUEST', 'Another poll of this log scanner is still running')
    if (!(timeoutMs >= 0)) throw new FlussError('INVALID_REQUEST', `Invalid poll timeout ${timeoutMs}`)
    const discovery = this.#discovery
    if (discovery === undefined && this.#fetcher.subscribedBuckets.length === 0) {
      throw new FlussError('INVALID_REQUEST', 'The log scanner is not subscribed to any bucket')
    }
    this.#polling = true
    this.#wakeupRequested = false
    try {
      const deadlineMs = Date.now() + timeoutMs
      for (;;) {
        discovery?.maybeDiscover(Date.now())
        const error = discovery?.takeError()
        if (error !== undefined) throw error
        const records = this.#fetcher.collect(this.#maxPollRecords)
        this.#fetcher.sendFetches()
        if (!records.isEmpty()) return records.withRowType(this.rowType)
        if (this.#wakeupRequested || this.#closed) return records
        const remainingMs = deadlineMs - Date.now()
        if (remainingMs <= 0) return ScanRecords.EMPTY
        const untilDiscoveryMs = discovery?.msUntilDue(Date.now()) ?? remainingMs
        await this.#fetcher.waitForProgress(Math.max(1, Math.min(remainingMs, untilDiscoveryMs)))
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
    this.#discovery?.close()
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
