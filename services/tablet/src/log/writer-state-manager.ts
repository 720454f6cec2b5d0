import { FlussError } from '@sluice/core/errors'
import type { LogRecordBatch } from '@sluice/core/record'
import type { FileIO } from './file-io.js'
import { WriterSnapshots } from './writer-snapshots.js'
import { type BatchMetadata, firstOffsetOf, inSequence, WriterStateEntry } from './writer-state-entry.js'

/** The original offsets of a batch the writer already appended (a retry after a lost response). */
export interface DuplicateAppend {
  readonly firstOffset: number
  readonly lastOffset: number
  readonly timestamp: number
}

/** The outcome of checking a request's batches against writer state, before anything is written. */
export interface WriterAppendPlan {
  readonly duplicate: DuplicateAppend | null
  readonly updates: ReadonlyMap<number, WriterStateEntry>
}

function batchMetadata(batch: LogRecordBatch): BatchMetadata {
  const lastOffset = batch.lastOffset
  return {
    batchSequence: batch.batchSequence,
    lastOffset,
    offsetDelta: lastOffset - batch.baseOffset,
    timestamp: batch.commitTimestamp,
  }
}

/**
 * Idempotent-writer state of one bucket: for each writer id, its last few batches (sequence and
 * offsets). Changes are planned first (`planAppend`, which throws on a sequence gap) and applied
 * only after the log write succeeded, so a failed append leaves the state untouched.
 *
 * Snapshots (`<offset>.writer_snapshot`) hold the state of every batch below `offset`; they are taken
 * when a segment rolls and on close, and recovery replays the log from the latest one.
 */
export class WriterStateManager {
  readonly #writers = new Map<number, WriterStateEntry>()
  readonly snapshots: WriterSnapshots
  /** Batches below this offset are reflected in the state. */
  mapEndOffset = 0

  constructor(
    io: FileIO,
    dir: string,
    readonly writerExpirationMs: number,
    /** Names the bucket in messages (`TableBucket{…}` on tablet servers). */
    readonly name: string = dir,
  ) {
    this.snapshots = new WriterSnapshots(io, dir)
  }

  get writerCount(): number {
    return this.#writers.size
  }

  lastEntry(writerId: number): WriterStateEntry | undefined {
    return this.#writers.get(writerId)
  }

  activeWriters(): ReadonlyMap<number, WriterStateEntry> {
    return this.#writers
  }

  /**
   * Checks offset-assigned batches against the state. A leader answers a retried batch (same writer,
   * a sequence among the last five) with the original offsets instead of appending it again; a
   * follower treats that as DUPLICATE_SEQUENCE_EXCEPTION. A sequence gap is
   * OUT_OF_ORDER_SEQUENCE_EXCEPTION. Changes nothing.
   */
  planAppend(batches: readonly LogRecordBatch[], asLeader: boolean, nowMs: number): WriterAppendPlan {
    const updates = new Map<number, WriterStateEntry>()
    const duplicates: BatchMetadata[] = []
    let fresh = 0
    for (const batch of batches) {
      if (!batch.hasWriterId) {
        fresh++
        continue
      }
      const writerId = batch.writerId
      const duplicate = this.#writers.get(writerId)?.findDuplicate(batch.batchSequence)
      if (duplicate) {
        duplicates.push(duplicate)
        continue
      }
      fresh++
      const entry =
        updates.get(writerId) ?? this.#writers.get(writerId)?.clone() ?? new WriterStateEntry(writerId)
      const expired = nowMs - batch.commitTimestamp > this.writerExpirationMs
      if (!inSequence(entry.lastBatchSequence, batch.batchSequence, expired || !asLeader)) {
        throw new FlussError(
          'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
          `Out of order batch sequence for writer ${writerId} at offset ${batch.lastOffset} in ` +
            `table-bucket ${this.name} : ${batch.batchSequence} (incoming batch seq.), ` +
            `${entry.lastBatchSequence} (current batch seq.)`,
        )
      }
      entry.addBatch(batchMetadata(batch))
      updates.set(writerId, entry)
    }
    if (duplicates.length === 0) return { duplicate: null, updates }
    return { duplicate: this.#duplicateOutcome(duplicates, fresh, asLeader), updates: new Map() }
  }

  #duplicateOutcome(duplicates: readonly BatchMetadata[], fresh: number, asLeader: boolean): DuplicateAppend {
    const first = duplicates[0]
    const last = duplicates[duplicates.length - 1]
    if (!asLeader) {
      throw new FlussError(
        'DUPLICATE_SEQUENCE_EXCEPTION',
        `duplicate batch sequence ${first.batchSequence} (offset ${first.lastOffset}) in a follower append`,
      )
    }
    if (fresh > 0) {
      throw new FlussError(
        'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
        `request mixes ${duplicates.length} already appended batch(es) with ${fresh} new one(s)`,
      )
    }
    return { firstOffset: firstOffsetOf(first), lastOffset: last.lastOffset, timestamp: last.timestamp }
  }

  apply(plan: WriterAppendPlan): void {
    for (const [writerId, entry] of plan.updates) this.#writers.set(writerId, entry)
  }

  /** Replays a batch already in the log (recovery), without sequence checks. */
  loadBatch(batch: LogRecordBatch): void {
    if (!batch.hasWriterId) return
    const writerId = batch.writerId
    let entry = this.#writers.get(writerId)
    if (!entry) {
      entry = new WriterStateEntry(writerId)
      this.#writers.set(writerId, entry)
    }
    entry.addBatch(batchMetadata(batch))
  }

  removeExpiredWriters(nowMs: number): number {
    let removed = 0
    for (const [writerId, entry] of this.#writers) {
      if (nowMs - entry.lastTimestamp > this.writerExpirationMs) {
        this.#writers.delete(writerId)
        removed++
      }
    }
    return removed
  }

  clear(mapEndOffset: number): void {
    this.#writers.clear()
    this.mapEndOffset = mapEndOffset
  }

  /** Writes a snapshot at `mapEndOffset` (no-op when one exists there). */
  async takeSnapshot(): Promise<void> {
    await this.snapshots.write(this.mapEndOffset, [...this.#writers.values()])
  }

  /**
   * Resets the state to the latest readable snapshot at or below `maxOffset` (snapshots above it are
   * deleted). Returns the snapshot's offset, or null when there is none (state left empty).
   */
  async loadLatestSnapshot(maxOffset: number, nowMs: number): Promise<number | null> {
    this.#writers.clear()
    const loaded = await this.snapshots.readLatest(maxOffset)
    if (!loaded) return null
    for (const entry of loaded.entries) {
      if (nowMs - entry.lastTimestamp <= this.writerExpirationMs) this.#writers.set(entry.writerId, entry)
    }
    this.mapEndOffset = loaded.offset
    return loaded.offset
  }
}
