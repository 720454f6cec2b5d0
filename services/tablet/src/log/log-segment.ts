import { assert, FlussError } from '@sluice/core/errors'
import type { LogRecordBatch } from '@sluice/core/record'
import { type FileIO, type LogFileHandle, readFully, storageError, writeFully } from './file-io.js'
import { INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX, offsetFilePath, TIME_INDEX_FILE_SUFFIX } from './log-paths.js'
import { emptyIndexes, loadIndexes, persistIndexes, type SegmentIndexes } from './segment-indexes.js'
import { findBatch, type SegmentRange, visiblePrefix } from './segment-lookup.js'
import { type ScanSummary, scanSegment } from './segment-scan.js'
import type { TimestampOffset } from './time-index.js'

export interface LogSegmentConfig {
  /** `log.index.interval-size`: bytes of log between offset-index entries. */
  readonly indexIntervalBytes: number
  /** `log.index.file-size` / 8: entries per index before the segment must roll. */
  readonly indexMaxEntries: number
  /** Read size when scanning segment files. */
  readonly scanChunkBytes: number
}

/** One batch of an append, already validated and offset-assigned. */
export interface BatchPlacement {
  /** Position of the batch within the appended bytes. */
  readonly position: number
  readonly sizeInBytes: number
  readonly baseOffset: number
  readonly lastOffset: number
  readonly commitTimestamp: number
}

/** Where the first batch holding an offset sits in the file. */
export interface BatchLocation {
  readonly position: number
  readonly sizeInBytes: number
  readonly baseOffset: number
  readonly lastOffset: number
}

export interface SegmentRead {
  /** Whole batches. */
  readonly bytes: Buffer
  /** True when the read stopped at the end of the segment's data (the next segment may follow). */
  readonly reachedEnd: boolean
}

/**
 * One segment of a bucket's log: `<baseOffset>.log` holding batches exactly as they arrived (with
 * offsets and timestamps patched in), plus its sparse offset and time indexes. Not safe for
 * concurrent mutation: the LogTablet serializes appends, truncation and deletion.
 */
export class LogSegment {
  readonly logPath: string
  readonly indexPath: string
  readonly timeIndexPath: string
  #size: number
  #file: LogFileHandle | null = null
  #indexes: SegmentIndexes | null = null
  #indexesDirty = false
  #maxTimestamp: TimestampOffset | null = null
  #firstTimestamp: number | null | undefined = undefined
  #nextOffset: number | null = null
  #bytesSinceLastIndexEntry = 0
  /** Set after a failed write whose torn bytes could not be cut off yet. */
  #tornFile = false
  #closed = false

  private constructor(
    private readonly io: FileIO,
    dir: string,
    readonly baseOffset: number,
    private readonly config: LogSegmentConfig,
    size: number,
  ) {
    this.logPath = offsetFilePath(dir, baseOffset, LOG_FILE_SUFFIX)
    this.indexPath = offsetFilePath(dir, baseOffset, INDEX_FILE_SUFFIX)
    this.timeIndexPath = offsetFilePath(dir, baseOffset, TIME_INDEX_FILE_SUFFIX)
    this.#size = size
  }

  /** A new empty segment (any stale files with the same base offset are replaced). */
  static async create(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: LogSegmentConfig,
  ): Promise<LogSegment> {
    const segment = new LogSegment(io, dir, baseOffset, config, 0)
    try {
      segment.#file = await io.open(segment.logPath, { create: true, truncate: true })
      await io.remove(segment.indexPath)
      await io.remove(segment.timeIndexPath)
    } catch (e) {
      await segment.#file?.close().catch(() => {})
      throw storageError(e, `creating segment ${segment.logPath}`)
    }
    segment.#indexes = emptyIndexes(baseOffset, config.indexMaxEntries)
    segment.#indexesDirty = true
    segment.#maxTimestamp = { timestamp: -1, offset: baseOffset }
    segment.#firstTimestamp = null
    segment.#nextOffset = baseOffset
    return segment
  }

  /** An existing segment; indexes and offsets load lazily (or through `recover`/`loadEnd`). */
  static async open(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: LogSegmentConfig,
  ): Promise<LogSegment> {
    const segment = new LogSegment(io, dir, baseOffset, config, 0)
    try {
      segment.#file = await io.open(segment.logPath)
      segment.#size = await segment.#file.size()
    } catch (e) {
      await segment.#file?.close().catch(() => {})
      throw storageError(e, `opening segment ${segment.logPath}`)
    }
    return segment
  }

  get sizeInBytes(): number {
    return this.#size
  }

  /** Whether appending a batch ending at `lastOffset` needs a new segment first. */
  async shouldRoll(appendBytes: number, lastOffset: number, segmentBytes: number): Promise<boolean> {
    if (this.#size === 0) return false
    const { offsetIndex, timeIndex } = await this.#ensureIndexes()
    return (
      this.#size + appendBytes > segmentBytes ||
      offsetIndex.isFull ||
      timeIndex.isFull ||
      !offsetIndex.canAppendOffset(lastOffset)
    )
  }

  /** Appends batches already validated and offset-assigned; a failed write leaves no torn batch behind. */
  async append(bytes: Buffer, batches: readonly BatchPlacement[]): Promise<void> {
    assert(!this.#closed, `segment ${this.baseOffset} is closed`)
    await this.#cutTornBytes()
    const { offsetIndex, timeIndex } = await this.#ensureIndexes()
    let maxTimestamp = await this.maxTimestamp()
    const start = this.#size
    const file = this.#handle()
    try {
      await writeFully(file, bytes, start)
    } catch (e) {
      this.#tornFile = true
      await this.#cutTornBytes().catch(() => {})
      throw storageError(e, `appending ${bytes.length} bytes to ${this.logPath}`)
    }
    this.#size = start + bytes.length
    for (const b of batches) {
      if (b.commitTimestamp > maxTimestamp.timestamp) {
        maxTimestamp = { timestamp: b.commitTimestamp, offset: b.baseOffset }
      }
      if (this.#bytesSinceLastIndexEntry > this.config.indexIntervalBytes && !offsetIndex.isFull) {
        offsetIndex.append(b.lastOffset, start + b.position)
        timeIndex.maybeAppend(maxTimestamp.timestamp, maxTimestamp.offset)
        this.#bytesSinceLastIndexEntry = 0
      }
      this.#bytesSinceLastIndexEntry += b.sizeInBytes
      this.#firstTimestamp ??= b.commitTimestamp
      this.#nextOffset = b.lastOffset + 1
    }
    this.#maxTimestamp = maxTimestamp
    this.#indexesDirty = true
  }

  /**
   * Reads whole batches starting with the first batch that holds `startOffset`, at most `maxBytes`
   * (the first batch regardless when `minOneMessage`), none that reaches `maxOffset` (exclusive).
   * Null when no batch of this segment holds `startOffset` or anything above it.
   */
  async read(
    startOffset: number,
    maxBytes: number,
    maxOffset: number,
    minOneMessage: boolean,
  ): Promise<SegmentRead | null> {
    const location = await this.translateOffset(startOffset)
    if (!location) return null
    if (location.lastOffset >= maxOffset) return { bytes: Buffer.alloc(0), reachedEnd: false }
    const budget = minOneMessage ? Math.max(maxBytes, location.sizeInBytes) : maxBytes
    const length = Math.min(this.#size - location.position, budget)
    const raw = await this.#read(length, location.position)
    const taken = visiblePrefix(raw, maxOffset)
    return { bytes: raw.subarray(0, taken), reachedEnd: location.position + taken >= this.#size }
  }

  /** The first batch whose last offset is >= `offset`, found through the index and a short scan. */
  async translateOffset(offset: number): Promise<BatchLocation | null> {
    const { offsetIndex } = await this.#ensureIndexes()
    return findBatch(
      this.#range(offsetIndex.lookup(offset).position),
      item => item.batch.lastOffset >= offset,
    )
  }

  /** Calls `visit` with the header of every batch starting in [fromOffset, toOffset), in order. */
  async forEachBatch(
    fromOffset: number,
    toOffset: number,
    visit: (batch: LogRecordBatch) => void,
  ): Promise<void> {
    const location = await this.translateOffset(fromOffset)
    if (!location) return
    await findBatch(this.#range(location.position), ({ batch }) => {
      if (batch.baseOffset >= toOffset) return true
      if (batch.baseOffset >= fromOffset) visit(batch)
      return false
    })
  }

  /** The first batch at or after `startingOffset` whose commit timestamp is >= `timestampMs`. */
  async findOffsetByTimestamp(timestampMs: number, startingOffset = 0): Promise<TimestampOffset | null> {
    const { offsetIndex, timeIndex } = await this.#ensureIndexes()
    const entry = timeIndex.lookup(timestampMs)
    const position = offsetIndex.lookup(Math.max(entry.offset, startingOffset)).position
    const found = await findBatch(
      this.#range(position),
      ({ batch }) => batch.commitTimestamp >= timestampMs && batch.lastOffset >= startingOffset,
    )
    return found && { timestamp: found.commitTimestamp, offset: Math.max(found.baseOffset, startingOffset) }
  }

  /** The greatest commit timestamp in the segment and the first offset having it; (-1, base) if empty. */
  async maxTimestamp(): Promise<TimestampOffset> {
    if (this.#maxTimestamp) return this.#maxTimestamp
    await this.#loadTail()
    return this.#maxTimestamp ?? { timestamp: -1, offset: this.baseOffset }
  }

  /** The commit timestamp of the first batch, or null for an empty segment. */
  async firstTimestamp(): Promise<number | null> {
    if (this.#firstTimestamp === undefined) {
      const first = await findBatch(this.#range(0), () => true)
      this.#firstTimestamp = first ? first.commitTimestamp : null
    }
    return this.#firstTimestamp
  }

  /** The offset after the segment's last batch (its base offset when empty). */
  async nextOffset(): Promise<number> {
    if (this.#nextOffset === null) await this.#loadTail()
    return this.#nextOffset ?? this.baseOffset
  }

  /**
   * Rebuilds the indexes from the log, validating every batch, and cuts off everything from the
   * first torn, corrupt or out-of-order batch on. Returns the number of bytes cut.
   */
  async recover(): Promise<number> {
    const indexes = emptyIndexes(this.baseOffset, this.config.indexMaxEntries)
    const summary = await this.#scan(0, true, indexes)
    this.#indexes = indexes
    this.#indexesDirty = true
    this.#applyFullScan(summary)
    const fileSize = await this.#handle().size()
    if (fileSize > summary.validBytes) {
      await this.#handle().truncate(summary.validBytes)
      await this.#handle().sync()
    }
    this.#size = summary.validBytes
    return fileSize - summary.validBytes
  }

  /**
   * Truncates every batch that holds `offset` or anything above it. Returns the bytes cut. The
   * segment may take appends again afterwards (a sealed segment becomes active).
   */
  async truncateTo(offset: number): Promise<number> {
    const location = await this.translateOffset(offset)
    const { offsetIndex, timeIndex } = await this.#ensureIndexes()
    offsetIndex.truncateTo(offset)
    timeIndex.truncateTo(offset)
    this.#indexesDirty = true
    if (!location) return 0
    await this.#handle().truncate(location.position)
    const cut = this.#size - location.position
    this.#size = location.position
    this.#maxTimestamp = null
    this.#firstTimestamp = undefined
    this.#nextOffset = null
    await this.#loadTail()
    return cut
  }

  /** Prepares the segment to stop taking appends: final time-index entry, index files, fsync. */
  async seal(): Promise<void> {
    await this.#cutTornBytes()
    const { timeIndex } = await this.#ensureIndexes()
    const max = await this.maxTimestamp()
    if (max.timestamp >= 0) timeIndex.maybeAppend(max.timestamp, max.offset)
    this.#indexesDirty = true
    await this.persist()
  }

  /** fsync of the log file. */
  async flush(): Promise<void> {
    if (this.#file) await this.#file.sync()
  }

  /** Writes changed index files and fsyncs the log. */
  async persist(): Promise<void> {
    await this.flush()
    if (this.#indexes && this.#indexesDirty) {
      await persistIndexes(this.io, this, this.#indexes)
      this.#indexesDirty = false
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    await this.persist()
    this.#closed = true
    await this.#file?.close()
    this.#file = null
  }

  /** Closes without writing anything (after a failure, or before deleting). */
  async closeQuietly(): Promise<void> {
    this.#closed = true
    await this.#file?.close().catch(() => {})
    this.#file = null
  }

  async delete(): Promise<void> {
    await this.closeQuietly()
    await this.io.remove(this.logPath)
    await this.io.remove(this.indexPath)
    await this.io.remove(this.timeIndexPath)
  }

  /**
   * After a clean shutdown: trusts the index files and finds the end by scanning from the last
   * index entry. Falls back to full recovery when the indexes or the tail do not check out.
   */
  async loadEnd(): Promise<void> {
    const loaded = await loadIndexes(this.io, this, this.baseOffset, this.config.indexMaxEntries, this.#size)
    if (!loaded) {
      await this.recover()
      return
    }
    this.#indexes = loaded
    const summary = await this.#scan(this.#tailScanStart(loaded), false, null)
    if (summary.stop.reason !== 'end') {
      await this.recover()
      return
    }
    this.#applyTailScan(loaded, summary)
  }

  #handle(): LogFileHandle {
    const file = this.#file
    assert(file && !this.#closed, `segment ${this.logPath} is closed`)
    return file
  }

  #range(start: number): SegmentRange {
    return { file: this.#handle(), start, end: this.#size, chunkBytes: this.config.scanChunkBytes }
  }

  async #read(length: number, position: number): Promise<Buffer> {
    try {
      return await readFully(this.#handle(), length, position)
    } catch (e) {
      throw storageError(e, `reading ${length} bytes at ${position} of ${this.logPath}`)
    }
  }

  async #ensureIndexes(): Promise<SegmentIndexes> {
    if (this.#indexes) return this.#indexes
    const loaded = await loadIndexes(this.io, this, this.baseOffset, this.config.indexMaxEntries, this.#size)
    if (loaded) {
      this.#indexes = loaded
      return loaded
    }
    const rebuilt = emptyIndexes(this.baseOffset, this.config.indexMaxEntries)
    const summary = await this.#scan(0, false, rebuilt)
    assertIntact(summary, this.logPath)
    this.#indexes = rebuilt
    this.#indexesDirty = true
    this.#applyFullScan(summary)
    return rebuilt
  }

  /** Finds the segment's end offset and max timestamp by scanning after the indexed part. */
  async #loadTail(): Promise<void> {
    const indexes = await this.#ensureIndexes()
    if (this.#nextOffset !== null && this.#maxTimestamp) return
    const summary = await this.#scan(this.#tailScanStart(indexes), false, null)
    assertIntact(summary, this.logPath)
    this.#applyTailScan(indexes, summary)
  }

  /** Takes end offset and max timestamp from the indexes plus a scan of the unindexed tail. */
  #applyTailScan(indexes: SegmentIndexes, summary: ScanSummary): void {
    const fromIndex = indexes.timeIndex.lastEntry()
    const scanned = summary.maxTimestamp
    this.#maxTimestamp = scanned && scanned.timestamp > fromIndex.timestamp ? scanned : fromIndex
    this.#nextOffset = summary.nextOffset ?? this.baseOffset
    this.#bytesSinceLastIndexEntry = this.#size - indexes.offsetIndex.lastEntry().position
  }

  #tailScanStart(indexes: SegmentIndexes): number {
    const timePosition = indexes.offsetIndex.lookup(indexes.timeIndex.lastEntry().offset).position
    return Math.min(timePosition, indexes.offsetIndex.lastEntry().position)
  }

  #scan(from: number, validate: boolean, indexes: SegmentIndexes | null): Promise<ScanSummary> {
    return scanSegment(this.#handle(), from, this.#size, {
      validate,
      indexes,
      indexIntervalBytes: this.config.indexIntervalBytes,
      chunkBytes: this.config.scanChunkBytes,
      minBaseOffset: from === 0 ? this.baseOffset : Number.MIN_SAFE_INTEGER,
    })
  }

  /** Takes end offset and max timestamp from a scan of the whole segment. */
  #applyFullScan(summary: ScanSummary): void {
    this.#nextOffset = summary.nextOffset ?? this.baseOffset
    this.#maxTimestamp = summary.maxTimestamp ?? { timestamp: -1, offset: this.baseOffset }
    this.#firstTimestamp = summary.firstTimestamp
    this.#bytesSinceLastIndexEntry = summary.bytesSinceLastIndexEntry
  }

  async #cutTornBytes(): Promise<void> {
    if (!this.#tornFile) return
    const file = this.#handle()
    try {
      await file.truncate(this.#size)
    } catch (e) {
      throw storageError(e, `cutting torn bytes after position ${this.#size} of ${this.logPath}`)
    }
    this.#tornFile = false
  }
}

function assertIntact(summary: ScanSummary, path: string): void {
  const { stop } = summary
  if (stop.reason !== 'end') {
    throw new FlussError(
      'LOG_STORAGE_EXCEPTION',
      `segment ${path} is damaged at position ${stop.position}: ${stop.message}`,
    )
  }
}
