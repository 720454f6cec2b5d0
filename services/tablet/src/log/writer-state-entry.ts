import { NO_BATCH_SEQUENCE } from '@sluice/core/record'

/** How many recent batches per writer are kept to recognise a retried (duplicate) batch. */
export const NUM_BATCHES_TO_RETAIN = 5

/** A batch a writer appended: enough to answer a retry with the original offsets. */
export interface BatchMetadata {
  readonly batchSequence: number
  readonly lastOffset: number
  /** lastOffset - firstOffset. */
  readonly offsetDelta: number
  readonly timestamp: number
}

export function firstOffsetOf(batch: BatchMetadata): number {
  return batch.lastOffset - batch.offsetDelta
}

/** One idempotent writer's state in one bucket: its last few batches, oldest first. */
export class WriterStateEntry {
  readonly #batches: BatchMetadata[]

  constructor(
    readonly writerId: number,
    public lastTimestamp = -1,
    batches: readonly BatchMetadata[] = [],
  ) {
    this.#batches = batches.slice(-NUM_BATCHES_TO_RETAIN)
  }

  get batches(): readonly BatchMetadata[] {
    return this.#batches
  }

  get isEmpty(): boolean {
    return this.#batches.length === 0
  }

  get lastBatchSequence(): number {
    return this.#batches.at(-1)?.batchSequence ?? NO_BATCH_SEQUENCE
  }

  get lastOffset(): number {
    return this.#batches.at(-1)?.lastOffset ?? -1
  }

  addBatch(batch: BatchMetadata): void {
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) this.#batches.shift()
    this.#batches.push(batch)
    this.lastTimestamp = batch.timestamp
  }

  findDuplicate(batchSequence: number): BatchMetadata | undefined {
    return this.#batches.find(b => b.batchSequence === batchSequence)
  }

  clone(): WriterStateEntry {
    return new WriterStateEntry(this.writerId, this.lastTimestamp, this.#batches)
  }
}

/**
 * Fluss's sequence rule (`WriterAppendInfo.inSequence`): the next batch sequence is the last + 1
 * (so a new writer starts at 0), or wraps from int32 max to 0. A follower (or a batch whose writer
 * state expired) with no known state accepts any sequence.
 */
export function inSequence(lastSequence: number, nextSequence: number, acceptUnknown: boolean): boolean {
  return (
    (lastSequence === NO_BATCH_SEQUENCE && acceptUnknown) ||
    nextSequence === lastSequence + 1 ||
    (nextSequence === 0 && lastSequence === 0x7fffffff)
  )
}
