import type { Clock } from '@sluice/core/util'
import type { LocalLog } from './local-log.js'
import { rebuildWriterState } from './log-loader.js'
import type { SealedSegment } from './log-tablet-types.js'
import type { WriterStateManager } from './writer-state-manager.js'

/**
 * The LogTablet's structural operations: rolling, truncation, retention and the sealed-segment
 * listing. Called only from the tablet's serial executor (and, where bytes disappear, under its
 * exclusive lock).
 */
export class LogMaintenance {
  constructor(
    private readonly log: LocalLog,
    private readonly writers: WriterStateManager,
    private readonly clock: Clock,
  ) {}

  /** Snapshot of writer state at the log end offset (taken whenever a segment rolls). */
  async snapshotWriters(): Promise<void> {
    this.writers.mapEndOffset = this.log.logEndOffset
    await this.writers.takeSnapshot()
  }

  async roll(): Promise<boolean> {
    if (!(await this.log.roll())) return false
    await this.snapshotWriters()
    return true
  }

  /** Rolls when the active segment's first batch is at least `maxSegmentAgeMs` old. */
  async maybeRollByAge(nowMs: number, maxSegmentAgeMs: number): Promise<boolean> {
    const first = await this.log.activeSegment.firstTimestamp()
    if (first === null || nowMs - first < maxSegmentAgeMs) return false
    return this.roll()
  }

  async truncateTo(offset: number): Promise<boolean> {
    if (offset >= this.log.logEndOffset) return false
    if (offset < this.log.logStartOffset) {
      await this.truncateFullyAndStartAt(offset)
      return true
    }
    await this.log.truncateTo(offset)
    await rebuildWriterState(this.log, this.writers, this.log.logEndOffset, this.clock.nowMs())
    return true
  }

  async truncateFullyAndStartAt(offset: number): Promise<void> {
    await this.log.truncateFullyAndStartAt(offset)
    this.writers.clear(offset)
    await this.writers.snapshots.deleteAll()
  }

  /** Deletes the oldest sealed segments whose max timestamp is more than `ttlMs` before `nowMs`. */
  async deleteOlderThan(ttlMs: number, nowMs: number, highWatermark: number): Promise<number> {
    const segments = this.log.segments
    let count = 0
    while (count < segments.length - 1 && segments[count + 1].baseOffset <= highWatermark) {
      const { timestamp } = await segments[count].maxTimestamp()
      if (nowMs - timestamp <= ttlMs) break
      count++
    }
    return this.#deleteOldest(count)
  }

  /** Deletes the sealed segments that end at or below `offset`. */
  async deleteBelow(offset: number): Promise<number> {
    const segments = this.log.segments
    let count = 0
    while (count < segments.length - 1 && segments[count + 1].baseOffset <= offset) count++
    return this.#deleteOldest(count)
  }

  async sealedSegments(): Promise<SealedSegment[]> {
    const segments = this.log.segments
    const snapshots = new Set(await this.writers.snapshots.offsets())
    const sealed: SealedSegment[] = []
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i]
      const endOffset = segments[i + 1].baseOffset
      sealed.push({
        baseOffset: segment.baseOffset,
        endOffset,
        sizeInBytes: segment.sizeInBytes,
        maxTimestamp: (await segment.maxTimestamp()).timestamp,
        logPath: segment.logPath,
        indexPath: segment.indexPath,
        timeIndexPath: segment.timeIndexPath,
        writerSnapshotPath: snapshots.has(endOffset) ? this.writers.snapshots.path(endOffset) : null,
      })
    }
    return sealed
  }

  async #deleteOldest(count: number): Promise<number> {
    if (count === 0) return 0
    await this.log.deleteOldestSegments(count)
    await this.writers.snapshots.deleteBelow(this.log.logStartOffset)
    return count
  }
}
