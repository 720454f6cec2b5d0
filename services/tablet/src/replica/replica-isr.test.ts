import { FlussError, isFlussError } from '@sluice/core/errors'
import { afterEach, describe, expect, it } from 'vitest'
import { testBatch } from '../testing/log.js'
import {
  appendBatches,
  createTestReplica,
  followerFetch,
  leaderAndIsr,
  settle,
  type TestReplica,
} from '../testing/replica.js'
import { maximalIsr } from './isr-state.js'
import { LeaderIsr } from './replica-isr.js'

const MAX_LAG_MS = 1000

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    e => e,
  )
}

describe('LeaderIsr bookkeeping', () => {
  const log = { logEndOffset: 10, highWatermark: 4 }
  const isr = () => new LeaderIsr({ localServerId: 1, maxLagMs: MAX_LAG_MS, log })

  it('a pending shrink still counts the removed followers for the high watermark, a pending expansion already counts the new one', () => {
    const leader = isr()
    leader.assign([1, 2, 3], [1, 2, 3], true, 0)
    leader.updateFollowerFetchState(2, 10, 0)
    leader.updateFollowerFetchState(3, 4, 0)
    const shrink = leader.prepareShrink(MAX_LAG_MS + 1)
    expect(shrink?.proposedIsr).toEqual([1, 2])
    expect(maximalIsr(leader.state)).toEqual([1, 2, 3])
    expect(leader.highWatermarkCandidate(MAX_LAG_MS + 1)).toBe(4)
    // No second change while one is in flight.
    expect(leader.prepareShrink(MAX_LAG_MS * 5)).toBeUndefined()
    leader.commit([1, 2])
    expect(leader.highWatermarkCandidate(MAX_LAG_MS + 1)).toBe(10)
    leader.updateFollowerFetchState(3, 10, MAX_LAG_MS + 2)
    expect(leader.prepareExpand(3, 0, MAX_LAG_MS + 2)?.proposedIsr).toEqual([1, 2, 3])
    expect(maximalIsr(leader.state)).toEqual([1, 2, 3])
  })

  it('counts a follower as caught up when it reaches the leader end seen at its previous fetch', () => {
    const leader = isr()
    leader.assign([1, 2], [1, 2], true, 0)
    log.logEndOffset = 10
    leader.updateFollowerFetchState(2, 8, 100)
    log.logEndOffset = 12
    // Fetches never reach the moving end, but each reaches the end seen at the fetch before.
    leader.updateFollowerFetchState(2, 10, 200)
    log.logEndOffset = 14
    leader.updateFollowerFetchState(2, 12, 300)
    expect(leader.follower(2)?.lastCaughtUpTimeMs).toBe(200)
    expect(leader.outOfSyncFollowers(200 + MAX_LAG_MS)).toEqual([])
    expect(leader.outOfSyncFollowers(201 + MAX_LAG_MS)).toEqual([2])
    log.logEndOffset = 10
  })
})

describe('a leader replica keeps its ISR', () => {
  let t: TestReplica

  afterEach(async () => {
    await t?.close()
  })

  async function leaderWithFollowers(options: { minInSyncReplicas?: number; isr?: number[] } = {}) {
    t = await createTestReplica({ maxLagMs: MAX_LAG_MS, ...options })
    t.replica.makeLeader(leaderAndIsr(1, 1, options.isr ?? [1, 2, 3]))
    await t.replica.whenLeaderReady()
    return t.replica
  }

  it('drops a follower that stopped fetching after log.replica.max-lag-time; the high watermark then advances', async () => {
    const replica = await leaderWithFollowers()
    await followerFetch(replica, 2, 0)
    await followerFetch(replica, 3, 0)
    await appendBatches(replica, 3)
    t.clock.advance(900)
    await followerFetch(replica, 2, 3)
    expect(replica.logTablet.highWatermark).toBe(0)
    expect(replica.checkEnoughReplicasReachOffset(3)).toEqual({ done: false })
    replica.maybeShrinkIsr()
    expect(t.writer.proposals).toEqual([])

    t.clock.advance(MAX_LAG_MS)
    replica.maybeShrinkIsr()
    await settle()
    expect(t.writer.proposals).toEqual([
      { tableBucket: { tableId: 7, bucket: 0 }, leader: 1, leaderEpoch: 1, bucketEpoch: 1, isr: [1, 2] },
    ])
    expect(replica.isr).toEqual([1, 2])
    expect(replica.bucketEpoch).toBe(2)
    expect(replica.logTablet.highWatermark).toBe(3)
    expect(replica.checkEnoughReplicasReachOffset(3)).toEqual({ done: true })
  })

  it('takes a follower back once it holds the high watermark and reached the leader end', async () => {
    const replica = await leaderWithFollowers({ isr: [1, 2] })
    await appendBatches(replica, 4)
    await followerFetch(replica, 2, 4)
    expect(replica.logTablet.highWatermark).toBe(4)
    await followerFetch(replica, 3, 2)
    await settle()
    expect(t.writer.proposals).toEqual([])
    await followerFetch(replica, 3, 4)
    await settle()
    expect(t.writer.proposals.map(p => p.isr)).toEqual([[1, 2, 3]])
    expect(replica.isr).toEqual([1, 2, 3])
    // Now the returning follower holds the high watermark back again.
    await appendBatches(replica, 1)
    await followerFetch(replica, 2, 5)
    expect(replica.logTablet.highWatermark).toBe(4)
    await followerFetch(replica, 3, 5)
    expect(replica.logTablet.highWatermark).toBe(5)
  })

  it('refuses acks=all below the minimum ISR before appending, and keeps the high watermark still', async () => {
    const replica = await leaderWithFollowers({ minInSyncReplicas: 2, isr: [1] })
    const refused = await rejection(replica.appendRecordsToLeader(await batch(), -1))
    expect(isFlussError(refused, 'NOT_ENOUGH_REPLICAS_EXCEPTION')).toBe(true)
    expect(replica.logTablet.logEndOffset).toBe(0)
    await appendBatches(replica, 2)
    expect(replica.logTablet.logEndOffset).toBe(2)
    expect(replica.logTablet.highWatermark).toBe(0)
    await followerFetch(replica, 2, 2)
    await settle()
    expect(replica.isr).toEqual([1, 2])
    expect(replica.logTablet.highWatermark).toBe(2)
    await replica.appendRecordsToLeader(await batch(), -1)
    expect(replica.logTablet.logEndOffset).toBe(3)
  })

  it('stops acting as leader when its ISR write finds it deposed: waiting acks=all fail, writes are refused', async () => {
    const replica = await leaderWithFollowers()
    await followerFetch(replica, 2, 0)
    await followerFetch(replica, 3, 0)
    await appendBatches(replica, 2)
    expect(replica.checkEnoughReplicasReachOffset(2).done).toBe(false)
    const stored = {
      leader: 2,
      leaderEpoch: 2,
      isr: [2, 3],
      replicas: [1, 2, 3],
      bucketEpoch: 2,
      coordinatorEpoch: 1,
    }
    t.writer.answerNext({ kind: 'deposed', leaderAndIsr: stored })
    t.clock.advance(MAX_LAG_MS + 1)
    replica.maybeShrinkIsr()
    await settle()
    expect(replica.isLeader).toBe(false)
    expect(replica.leaderId).toBe(2)
    const waiting = replica.checkEnoughReplicasReachOffset(2)
    expect(waiting.done).toBe(true)
    expect(waiting.error?.errorName).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(isFlussError(await rejection(appendBatches(replica, 1)), 'NOT_LEADER_OR_FOLLOWER')).toBe(true)
    expect(isFlussError(await rejection(followerFetch(replica, 3, 2)), 'NOT_LEADER_OR_FOLLOWER')).toBe(true)
    // Nothing more is proposed, and only a newer epoch makes it leader again.
    replica.maybeShrinkIsr()
    expect(t.writer.proposals).toHaveLength(1)
    expect(() => replica.makeLeader(leaderAndIsr(1, 1, [1, 2, 3]))).toThrow(/FENCED|does not lead/)
    expect(replica.makeFollower(leaderAndIsr(2, 2, [2, 3], [1, 2, 3], 2))).toBe(true)
  })

  it('adopts the stored ISR when the coordinator changed it meanwhile', async () => {
    const replica = await leaderWithFollowers()
    t.writer.answerNext({
      kind: 'stale',
      leaderAndIsr: {
        leader: 1,
        leaderEpoch: 1,
        isr: [1, 3],
        replicas: [1, 2, 3],
        bucketEpoch: 5,
        coordinatorEpoch: 1,
      },
    })
    t.clock.advance(MAX_LAG_MS + 1)
    await followerFetch(replica, 3, 0)
    replica.maybeShrinkIsr()
    await settle()
    expect(replica.isr).toEqual([1, 3])
    expect(replica.bucketEpoch).toBe(5)
    expect(replica.isrState.kind).toBe('committed')
  })

  it('retries an ISR write that failed for a passing reason, and drops one that cannot succeed', async () => {
    const replica = await leaderWithFollowers()
    t.writer.answerNext(new FlussError('STORAGE_EXCEPTION', 'throttled'))
    t.clock.advance(MAX_LAG_MS + 1)
    replica.maybeShrinkIsr()
    await waitFor(() => t.writer.proposals.length === 2 && replica.isrState.kind === 'committed')
    expect(replica.isr).toEqual([1])

    t.writer.answerNext(new FlussError('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION', 'dropped'))
    await followerFetch(replica, 2, 0)
    await settle()
    expect(replica.isrState).toEqual({ kind: 'committed', isr: [1] })
  })

  it('refuses notifications with an older leader epoch or bucket epoch', async () => {
    const replica = await leaderWithFollowers()
    const fenced = (() => {
      try {
        replica.makeLeader(leaderAndIsr(1, 0, [1, 2, 3], [1, 2, 3], 1))
      } catch (e) {
        return e
      }
    })()
    expect(isFlussError(fenced, 'FENCED_LEADER_EPOCH_EXCEPTION')).toBe(true)
    expect(() => replica.makeLeader(leaderAndIsr(1, 1, [1, 2], [1, 2, 3], 0))).toThrow(/bucket epoch 0/)
  })
})

async function batch(): Promise<Buffer> {
  return testBatch()
}

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met')
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}
