import { assert } from '@sluice/core/errors'
import { type FileIO, storageError } from './file-io.js'
import { type BatchPlacement, LogSegment, type LogSegmentConfig } from './log-segment.js'

export interface LocalLogConfig extends LogSegmentConfig {
  readonly segmentBytes: number
}

/**
 * The segments of one bucket's local log, sorted by base offset; the last one is active (takes
 * appends) and always exists. Knows nothing of writers or the high watermark; not safe for
 * concurrent mutation (the LogTablet serializes).
 */
export class LocalLog {
  readonly #segments: LogSegment[]
  logEndOffset: number
  /** Greatest commit timestamp in the local log, -1 when empty. */
  localMaxTimestamp: number

  constructor(
    private readonly io: FileIO,
    readonly dir: string,
    readonly config: LocalLogConfig,
    segments: LogSegment[],
    logEndOffset: number,
    localMaxTimestamp: number,
  ) {
    assert(segments.length > 0, 'a local log has at least one segment')
    this.#segments = segments
    this.logEndOffset = logEndOffset
    this.localMaxTimestamp = localMaxTimestamp
  }

  get segments(): readonly LogSegment[] {
    return this.#segments
  }

  get activeSegment(): LogSegment {
    return this.#segments[this.#segments.length - 1]
  }

  get logStartOffset(): number {
    return this.#segments[0].baseOffset
  }

  /** Index of the last segment whose base offset is <= offset, or -1. */
  floorIndex(offset: number): number {
    let lo = 0
    let hi = this.#segments.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.#segments[mid].baseOffset <= offset) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found
  }

  /** Rolls first when the active segment cannot take `appendBytes` more up to `lastOffset`. */
  async maybeRollFor(appendBytes: number, lastOffset: number): Promise<boolean> {
    if (!(await this.activeSegment.shouldRoll(appendBytes, lastOffset, this.config.segmentBytes)))
      return false
    await this.roll()
    return true
  }

  async append(
    bytes: Buffer,
    placements: readonly BatchPlacement[],
    lastOffset: number,
    maxTimestamp: number,
  ): Promise<void> {
    await this.activeSegment.append(bytes, placements)
    this.logEndOffset = lastOffset + 1
    this.localMaxTimestamp = Math.max(this.localMaxTimestamp, maxTimestamp)
  }

  /** Seals the active segment (indexes written, fsync) and starts a new one at the log end offset. */
  async roll(): Promise<LogSegment | null> {
    const active = this.activeSegment
    if (active.sizeInBytes === 0) return null
    await active.seal()
    const created = await LogSegment.create(this.io, this.dir, this.logEndOffset, this.config)
    this.#segments.push(created)
    await this.#syncDir()
    return created
  }

  /**
   * Whole batches from the one holding `fetchOffset` on, across segment boundaries, at most
   * `maxBytes` (but the first batch anyway when `minOneMessage`), none reaching `maxOffset`.
   */
  async read(
    fetchOffset: number,
    maxBytes: number,
    maxOffset: number,
    minOneMessage: boolean,
  ): Promise<Buffer> {
    const parts: Buffer[] = []
    let total = 0
    let first = minOneMessage
    let offset = fetchOffset
    for (
      let i = Math.max(0, this.floorIndex(fetchOffset));
      i < this.#segments.length && offset < maxOffset;
      i++
    ) {
      const segment = this.#segments[i]
      offset = Math.max(offset, segment.baseOffset)
      const read = await segment.read(offset, maxBytes - total, maxOffset, first)
      if (!read) continue
      if (read.bytes.length > 0) {
        parts.push(read.bytes)
        total += read.bytes.length
        first = false
      }
      if (!read.reachedEnd || total >= maxBytes) break
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts)
  }

  /** Drops every batch holding `offset` or above; `offset` must lie above the first segment's base. */
  async truncateTo(offset: number): Promise<void> {
    const floor = this.floorIndex(offset)
    assert(floor >= 0, `truncation offset ${offset} below the first segment ${this.logStartOffset}`)
    while (this.#segments.length - 1 > floor) {
      const removed = this.#segments.pop() as LogSegment
      await removed.delete()
    }
    const active = this.activeSegment
    await active.truncateTo(offset)
    this.logEndOffset = await active.nextOffset()
    this.localMaxTimestamp = await this.computeMaxTimestamp()
    await this.#syncDir()
  }

  /** Deletes every segment and starts an empty log at `offset`. */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    while (this.#segments.length > 0) await (this.#segments.pop() as LogSegment).delete()
    this.#segments.push(await LogSegment.create(this.io, this.dir, offset, this.config))
    this.logEndOffset = offset
    this.localMaxTimestamp = -1
    await this.#syncDir()
  }

  /** Deletes the `count` oldest segments (never the active one). */
  async deleteOldestSegments(count: number): Promise<void> {
    assert(count < this.#segments.length, 'the active segment is never deleted')
    for (const segment of this.#segments.splice(0, count)) await segment.delete()
    await this.#syncDir()
  }

  /** The first offset of the first batch whose commit timestamp is >= `timestampMs`, or null. */
  async lookupOffsetForTimestamp(timestampMs: number): Promise<number | null> {
    for (const segment of this.#segments) {
      if ((await segment.maxTimestamp()).timestamp < timestampMs) continue
      const found = await segment.findOffsetByTimestamp(timestampMs)
      if (found) return found.offset
    }
    return null
  }

  /**
   * The newest non-empty segment's max timestamp. Commit timestamps never decrease along the log
   * (the leader assigns max(previous max, now)), so that is the log's maximum.
   */
  async computeMaxTimestamp(): Promise<number> {
    for (let i = this.#segments.length - 1; i >= 0; i--) {
      const segment = this.#segments[i]
      if (segment.sizeInBytes > 0) return (await segment.maxTimestamp()).timestamp
    }
    return -1
  }

  async flush(): Promise<void> {
    await this.activeSegment.flush()
  }

  async close(): Promise<void> {
    for (const segment of this.#segments) await segment.close()
  }

  async closeQuietly(): Promise<void> {
    for (const segment of this.#segments) await segment.closeQuietly()
  }

  async #syncDir(): Promise<void> {
    try {
      await this.io.syncDir(this.dir)
    } catch (e) {
      throw storageError(e, `syncing directory ${this.dir}`)
    }
  }
}
