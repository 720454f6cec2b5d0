import { initialLeaderAndIsr } from '@sluice/core/control-plane'
import { describe, expect, it } from 'vitest'
import {
  afterControlledShutdown,
  afterReplicaLoss,
  afterServersReturn,
  electLeader,
} from './bucket-election.js'

const bucket = initialLeaderAndIsr([1, 2, 3], 1)

describe('bucket leader election', () => {
  it('elects the first live ISR member in assignment order, never one outside the ISR', () => {
    expect(electLeader(bucket, new Set([3, 2]))).toBe(2)
    expect(electLeader({ ...bucket, isr: [1] }, new Set([2, 3]))).toBeNull()
  })

  it('replaces a dead leader, bumping both epochs and dropping it from the ISR', () => {
    expect(afterReplicaLoss(bucket, 1, new Set([2, 3]), 5)).toEqual({
      leader: 2,
      leaderEpoch: 1,
      isr: [2, 3],
      replicas: [1, 2, 3],
      bucketEpoch: 1,
      coordinatorEpoch: 5,
    })
  })

  it('leaves the bucket leaderless when no ISR member is live, keeping the last ISR member', () => {
    const lonely = { ...bucket, isr: [1] }
    expect(afterReplicaLoss(lonely, 1, new Set([2, 3]), 5)).toMatchObject({
      leader: null,
      isr: [1],
      leaderEpoch: 1,
      bucketEpoch: 1,
    })
  })

  it('removes a dead follower from the ISR with only the bucket epoch bumped', () => {
    expect(afterReplicaLoss(bucket, 3, new Set([1, 2]), 5)).toMatchObject({
      leader: 1,
      isr: [1, 2],
      leaderEpoch: 0,
      bucketEpoch: 1,
    })
    expect(afterReplicaLoss({ ...bucket, isr: [1, 2] }, 3, new Set([1, 2]), 5)).toBeUndefined()
  })

  it('elects a leader for a leaderless bucket once an ISR member is back', () => {
    const leaderless = { ...bucket, leader: null, isr: [3], leaderEpoch: 4 }
    expect(afterServersReturn(leaderless, new Set([1, 2]), 6)).toBeUndefined()
    expect(afterServersReturn(leaderless, new Set([3]), 6)).toMatchObject({
      leader: 3,
      leaderEpoch: 5,
      coordinatorEpoch: 6,
    })
    expect(afterServersReturn(bucket, new Set([1]), 6)).toBeUndefined()
  })

  it('moves a shutting-down leader to the next eligible in-sync replica and takes it out of the ISR', () => {
    expect(afterControlledShutdown(bucket, 1, new Set([2, 3]), 7)).toMatchObject({
      leader: 2,
      isr: [2, 3],
      leaderEpoch: 1,
      bucketEpoch: 1,
      coordinatorEpoch: 7,
    })
    // A follower only leaves the ISR; with no other in-sync replica a leader stays (reported back).
    expect(afterControlledShutdown(bucket, 3, new Set([1, 2]), 7)).toMatchObject({
      leader: 1,
      isr: [1, 2],
      leaderEpoch: 0,
    })
    expect(afterControlledShutdown({ ...bucket, isr: [1] }, 1, new Set([2, 3]), 7)).toBeUndefined()
    expect(afterControlledShutdown({ ...bucket, isr: [1, 3] }, 2, new Set([1, 3]), 7)).toBeUndefined()
  })
})
