import { describe, expect, it } from 'vitest'
import {
  createNoKeyBucketAssigner,
  RoundRobinBucketAssigner,
  StickyBucketAssigner,
} from './bucket-assigner.js'

/** A scripted random source: returns the given ints in order, then repeats the last one. */
function scripted(...values: number[]) {
  let i = 0
  return () => values[Math.min(i++, values.length - 1)]
}

describe('StickyBucketAssigner', () => {
  it('keeps one random available bucket until its batch is full', () => {
    const assigner = new StickyBucketAssigner(10, scripted(1, 1, 2))
    const available = [3, 5, 7]
    expect(assigner.assignBucket(available)).toBe(5)
    expect(assigner.assignBucket(available)).toBe(5)
    expect(assigner.abortIfBatchFull).toBe(true)
    // the next random pick equals the current bucket, so it draws again
    assigner.onNewBatch(available, 5)
    expect(assigner.assignBucket(available)).toBe(7)
  })

  it('ignores a full batch of a bucket that is no longer the sticky one', () => {
    const assigner = new StickyBucketAssigner(10, scripted(0, 1))
    expect(assigner.assignBucket([3, 5])).toBe(3)
    assigner.onNewBatch([3, 5], 5)
    expect(assigner.assignBucket([3, 5])).toBe(3)
  })

  it('uses the only available bucket, or any bucket when none is available', () => {
    const single = new StickyBucketAssigner(10, scripted(4))
    expect(single.assignBucket([8])).toBe(8)
    const none = new StickyBucketAssigner(10, scripted(-7))
    // toPositive(-7) = 0x7ffffff9, modulo 10 = 7
    expect(none.assignBucket([])).toBe(0x7ffffff9 % 10)
  })

  it('still moves on when the random source keeps returning the current bucket', () => {
    const assigner = new StickyBucketAssigner(4, () => 0)
    expect(assigner.assignBucket([0, 1, 2])).toBe(0)
    assigner.onNewBatch([0, 1, 2], 0)
    expect(assigner.assignBucket([0, 1, 2])).toBe(1)
  })

  it('rejects a non-positive bucket count', () => {
    expect(() => new StickyBucketAssigner(0)).toThrow(/positive int/)
  })
})

describe('RoundRobinBucketAssigner', () => {
  it('cycles through the available buckets from a random start', () => {
    const assigner = new RoundRobinBucketAssigner(6, () => 4)
    const available = [1, 3, 5]
    expect([0, 1, 2, 3].map(() => assigner.assignBucket(available))).toEqual([3, 5, 1, 3])
    expect(assigner.abortIfBatchFull).toBe(false)
  })

  it('wraps the counter like a Java int and falls back to all buckets', () => {
    const assigner = new RoundRobinBucketAssigner(6, () => 0x7fffffff)
    expect(assigner.assignBucket([])).toBe(0x7fffffff % 6)
    // counter wrapped to MIN_VALUE: toPositive gives 0
    expect(assigner.assignBucket([])).toBe(0)
  })

  it('is created by kind', () => {
    expect(createNoKeyBucketAssigner('STICKY', 3)).toBeInstanceOf(StickyBucketAssigner)
    expect(createNoKeyBucketAssigner('ROUND_ROBIN', 3)).toBeInstanceOf(RoundRobinBucketAssigner)
  })
})
