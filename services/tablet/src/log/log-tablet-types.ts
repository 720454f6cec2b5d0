import type { Clock } from '@sluice/core/util'
import type { FileIO } from './file-io.js'

/**
 * Settings of one LogTablet. The server's configuration registry supplies them; the comments name
 * the Fluss option each one stands for.
 */
export interface LogTabletOptions {
  /** `log.segment.file-size`: roll the active segment before it would exceed this (at most 2 GiB - 1). */
  readonly segmentBytes: number
  /** `log.index.interval-size`: bytes of log between sparse index entries. */
  readonly indexIntervalBytes: number
  /** `log.index.file-size`: largest index per segment; a full index rolls the segment. */
  readonly indexBytes: number
  /** `server.writer-id.expiration-time`: idempotent writer state idle longer than this is dropped. */
  readonly writerExpirationMs: number
  /**
   * `log.replica.high-watermark.checkpoint-interval`: how often a changed high watermark is written
   * to its checkpoint file. 0 = only on close and on `checkpointHighWatermark()`.
   */
  readonly highWatermarkCheckpointIntervalMs: number
  /** Bound on this bucket's queued mutations (and on reads waiting behind a truncation). */
  readonly maxQueuedOperations: number
  /** Read size when scanning segment files (recovery, index lookups). Default 64 KiB. */
  readonly scanChunkBytes?: number
  readonly clock?: Clock
  /** File operations; tests inject failures here. Default: the real file system. */
  readonly io?: FileIO
  /** Names the bucket in error messages, e.g. `orders-1/3`. Default: the directory. */
  readonly name?: string
}

/** Fluss's defaults for the options above (the registry's values take precedence). */
export const LOG_TABLET_DEFAULTS = {
  segmentBytes: 1024 * 1024 * 1024,
  indexIntervalBytes: 4 * 1024,
  indexBytes: 10 * 1024 * 1024,
  writerExpirationMs: 7 * 24 * 60 * 60 * 1000,
  highWatermarkCheckpointIntervalMs: 5000,
  maxQueuedOperations: 1000,
  scanChunkBytes: 64 * 1024,
} as const satisfies Omit<LogTabletOptions, 'clock' | 'io' | 'name'>

export interface LogAppendInfo {
  /** Offset of the first record of the first batch. */
  readonly firstOffset: number
  /** Offset of the last record of the last batch (an empty batch spans one offset). */
  readonly lastOffset: number
  /** The log end offset after the append. */
  readonly logEndOffset: number
  /** The commit timestamp given to the batches. */
  readonly maxTimestamp: number
  /** True when the request repeated batches already in the log: nothing was appended. */
  readonly duplicate: boolean
  readonly batchCount: number
  readonly sizeInBytes: number
}

export type FetchIsolation = 'HIGH_WATERMARK' | 'LOG_END'

export interface LogReadParams {
  readonly fetchOffset: number
  readonly maxBytes: number
  /** Clients read below the high watermark; followers up to the log end. */
  readonly isolation: FetchIsolation
  /** Return the first batch even if it is larger than `maxBytes`. */
  readonly minOneMessage: boolean
}

export interface LogReadResult {
  /** Whole batches, starting with the one that holds `fetchOffset`. */
  readonly records: Buffer
  readonly highWatermark: number
  readonly logStartOffset: number
  readonly logEndOffset: number
}

/** A segment that no longer takes appends, for remote upload. */
export interface SealedSegment {
  readonly baseOffset: number
  /** Offset after its last batch (the next segment's base offset). */
  readonly endOffset: number
  readonly sizeInBytes: number
  readonly maxTimestamp: number
  readonly logPath: string
  readonly indexPath: string
  readonly timeIndexPath: string
  /** Writer state at `endOffset`, when a snapshot was taken there. */
  readonly writerSnapshotPath: string | null
}
