import { FlussError } from '../errors/index.js'

/** A source of uniformly random signed 32-bit integers (injectable for tests). */
export type RandomInt = () => number

export const randomInt32: RandomInt = () => (Math.random() * 0x1_0000_0000) | 0

/** Values of `client.writer.bucket.no-key-assigner`. */
export type NoKeyAssignerKind = 'STICKY' | 'ROUND_ROBIN'

/**
 * Picks buckets for records of tables without a bucket key. `availableBuckets` lists the bucket ids
 * whose leader is currently known; when it is empty any bucket in `[0, numBuckets)` may be chosen.
 */
export interface NoKeyBucketAssigner {
  assignBucket(availableBuckets: readonly number[]): number
  /** True when a full batch must not simply roll over: the writer calls `onNewBatch` and re-assigns. */
  readonly abortIfBatchFull: boolean
  /** Called when the batch of `prevBucketId` is full and a new batch is about to start. */
  onNewBatch(availableBuckets: readonly number[], prevBucketId: number): void
}

const MAX_RANDOM_TRIES = 64

function toPositive(n: number): number {
  return n & 0x7fffffff
}

function checkNumBuckets(numBuckets: number): void {
  if (!Number.isInteger(numBuckets) || numBuckets <= 0) {
    throw new FlussError('INVALID_REQUEST', `The number of buckets must be a positive int, got ${numBuckets}`)
  }
}

/**
 * Sticky assignment (Fluss's default): every record goes to one random available bucket until that
 * bucket's batch is full; then a different random available bucket is chosen.
 */
export class StickyBucketAssigner implements NoKeyBucketAssigner {
  readonly abortIfBatchFull = true
  private current = -1

  constructor(
    private readonly numBuckets: number,
    private readonly random: RandomInt = randomInt32,
  ) {
    checkNumBuckets(numBuckets)
  }

  assignBucket(availableBuckets: readonly number[]): number {
    if (this.current < 0) return this.nextBucket(availableBuckets, -1)
    return this.current
  }

  onNewBatch(availableBuckets: readonly number[], prevBucketId: number): void {
    this.nextBucket(availableBuckets, prevBucketId)
  }

  private nextBucket(available: readonly number[], prevBucketId: number): number {
    const old = this.current
    // only move on when unset, or when the full batch belongs to the current sticky bucket
    if (old >= 0 && old !== prevBucketId) return old
    let next = old
    if (available.length === 0) {
      next = toPositive(this.random()) % this.numBuckets
    } else if (available.length === 1) {
      next = available[0]
    } else {
      for (let tries = 0; (next < 0 || next === old) && tries < MAX_RANDOM_TRIES; tries++) {
        next = available[toPositive(this.random()) % available.length]
      }
      // a degenerate random source cannot stall the writer
      if (next < 0 || next === old) next = available.find(b => b !== old) ?? available[0]
    }
    this.current = next
    return next
  }
}

/** Round-robin assignment: a counter starting at a random int, taken modulo the available buckets. */
export class RoundRobinBucketAssigner implements NoKeyBucketAssigner {
  readonly abortIfBatchFull = false
  private counter: number

  constructor(
    private readonly numBuckets: number,
    random: RandomInt = randomInt32,
  ) {
    checkNumBuckets(numBuckets)
    this.counter = random() | 0
  }

  assignBucket(availableBuckets: readonly number[]): number {
    const value = this.counter
    this.counter = (value + 1) | 0
    if (availableBuckets.length > 0) return availableBuckets[toPositive(value) % availableBuckets.length]
    return toPositive(value) % this.numBuckets
  }

  onNewBatch(): void {}
}

export function createNoKeyBucketAssigner(
  kind: NoKeyAssignerKind,
  numBuckets: number,
  random: RandomInt = randomInt32,
): NoKeyBucketAssigner {
  return kind === 'STICKY'
    ? new StickyBucketAssigner(numBuckets, random)
    : new RoundRobinBucketAssigner(numBuckets, random)
}
