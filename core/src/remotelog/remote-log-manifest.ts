import { type RemoteSegmentKeys, remoteSegmentKeys } from '../blobstore/index.js'
import { assert } from '../errors/index.js'

/** One uploaded segment (Fluss's `RemoteLogSegment`). */
export interface RemoteLogSegmentEntry {
  /** UUID (version 7) of this upload; names the segment's folder. */
  readonly segmentId: string
  /** Offset of its first batch. */
  readonly baseOffset: number
  /**
   * EXCLUSIVE end: the offset after its last batch (the next local segment's base offset). This is
   * the value Fluss's server puts in `remote_log_end_offset` too (its javadoc says inclusive, its
   * LogTieringTask sends the next segment's base offset).
   */
  readonly endOffset: number
  /** Greatest batch commit timestamp in the segment (TTL is measured from it). */
  readonly maxTimestamp: number
  readonly sizeInBytes: number
  /** Whether `<endOffset>.writer_snapshot` was uploaded with it. */
  readonly hasWriterSnapshot: boolean
}

/**
 * The uploaded segments of one bucket, ordered by end offset, which strictly increases. Segments
 * of different leaders may overlap (followers roll their segments independently, so a new leader's
 * next segment can start below the remote end) and a gap may sit where local data expired before
 * it was uploaded; reads handle both. Immutable: every change returns a new manifest.
 */
export class RemoteLogManifest {
  constructor(
    /** The bucket's key prefix, `remote-log/<tableId>/<partition|_>/<bucket>`. */
    readonly tabletPrefix: string,
    readonly segments: readonly RemoteLogSegmentEntry[] = [],
  ) {
    for (let i = 1; i < segments.length; i++) {
      const prev = segments[i - 1] as RemoteLogSegmentEntry
      const next = segments[i] as RemoteLogSegmentEntry
      assert(
        next.endOffset > prev.endOffset,
        `remote segment [${next.baseOffset}, ${next.endOffset}) does not follow [${prev.baseOffset}, ${prev.endOffset})`,
      )
    }
  }

  get isEmpty(): boolean {
    return this.segments.length === 0
  }

  /** Lowest base offset of the remote segments; -1 when there is none. */
  get remoteLogStartOffset(): number {
    if (this.isEmpty) return -1
    return this.segments.reduce((min, s) => Math.min(min, s.baseOffset), Number.POSITIVE_INFINITY)
  }

  /** Exclusive end of the newest remote segment; -1 when there is none. */
  get remoteLogEndOffset(): number {
    return this.segments[this.segments.length - 1]?.endOffset ?? -1
  }

  get remoteSizeInBytes(): number {
    return this.segments.reduce((sum, s) => sum + s.sizeInBytes, 0)
  }

  keysOf(segment: RemoteLogSegmentEntry): RemoteSegmentKeys {
    return remoteSegmentKeys(this.tabletPrefix, segment.segmentId, segment.baseOffset, segment.endOffset)
  }

  has(segmentId: string): boolean {
    return this.segments.some(s => s.segmentId === segmentId)
  }

  /** Adds newly uploaded segments at the end. */
  withAppended(added: readonly RemoteLogSegmentEntry[]): RemoteLogManifest {
    return added.length === 0 ? this : new RemoteLogManifest(this.tabletPrefix, [...this.segments, ...added])
  }

  /** Drops the oldest `count` segments. */
  withoutOldest(count: number): RemoteLogManifest {
    return count === 0 ? this : new RemoteLogManifest(this.tabletPrefix, this.segments.slice(count))
  }

  /**
   * How many of the oldest segments are past the TTL (`nowMs - maxTimestamp > ttlMs`, Fluss's test)
   * and, for lake tables, already tiered (`endOffset <= lakeLogEndOffset`). Stops at the first one
   * that must stay, so the remote log start only moves forward. `ttlMs` <= 0 keeps everything.
   */
  expiredCount(nowMs: number, ttlMs: number, lakeLogEndOffset: number | null): number {
    if (ttlMs <= 0) return 0
    let count = 0
    for (const s of this.segments) {
      if (nowMs - s.maxTimestamp <= ttlMs) break
      if (lakeLogEndOffset !== null && s.endOffset > lakeLogEndOffset) break
      count++
    }
    return count
  }

  /** Whether `offset` can be served from remote storage: start <= offset < end. */
  canFetch(offset: number): boolean {
    return !this.isEmpty && offset >= this.remoteLogStartOffset && offset < this.remoteLogEndOffset
  }

  /** The segment to read `offset` from: the first one ending after it (null past the end). */
  segmentFor(offset: number): RemoteLogSegmentEntry | null {
    return this.segments.find(s => s.endOffset > offset) ?? null
  }

  /**
   * Fluss's `relevantRemoteLogSegments`: the last segment starting at or below `offset` and every
   * later one, keeping only those that end after `offset`.
   */
  relevantSegments(offset: number): RemoteLogSegmentEntry[] {
    let floor = 0
    this.segments.forEach((s, i) => {
      if (s.baseOffset <= offset) floor = i
    })
    return this.segments.slice(floor).filter(s => s.endOffset > offset)
  }

  /**
   * Whether every offset of [baseOffset, endOffset) lies in some remote segment. One pass in end
   * order: a segment that starts beyond the covered prefix cannot help later, since every later
   * segment ends further out.
   */
  covers(baseOffset: number, endOffset: number): boolean {
    let next = baseOffset
    for (const s of this.segments) {
      if (next >= endOffset) break
      if (s.baseOffset <= next && s.endOffset > next) next = s.endOffset
    }
    return next >= endOffset
  }
}
