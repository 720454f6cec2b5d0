import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isFlussError } from '@sluice/core/errors'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type EpochEntry, LeaderEpochCache } from '../leader-epoch-cache.js'
import { NO_EPOCH_HISTORY } from '../replica-types.js'
import {
  applySync,
  type LeaderEpochQueries,
  planSync,
  type ReconciledLog,
  syncWithLeader,
} from './leader-epoch-sync.js'

let dir: string
let dirs = 0

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-epoch-sync-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A log of records tagged with the epoch that wrote them (offset = index). */
class FakeLog implements ReconciledLog {
  logStartOffset = 0
  constructor(
    public records: number[],
    public highWatermark: number,
  ) {}
  get logEndOffset(): number {
    return this.records.length
  }
  async truncateTo(offset: number): Promise<boolean> {
    const cut = offset < this.records.length
    this.records = this.records.slice(0, offset)
    this.highWatermark = Math.min(this.highWatermark, offset)
    return cut
  }
}

async function cacheOf(entries: readonly EpochEntry[]): Promise<LeaderEpochCache> {
  const sub = join(dir, `c${dirs++}`)
  await mkdir(sub)
  const cache = await LeaderEpochCache.load(sub)
  for (const e of entries) cache.assign(e.epoch, e.startOffset)
  return cache
}

/** Records written by epochs: [[epoch, count], ...]. */
function written(...runs: [epoch: number, count: number][]): number[] {
  return runs.flatMap(([epoch, count]) => Array.from({ length: count }, () => epoch))
}

/** A leader answering the two questions from its own cache and log end, counting the questions. */
function leaderOf(cache: LeaderEpochCache, log: FakeLog): LeaderEpochQueries & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    async endOffsetFor(epoch) {
      asked.push(`end ${epoch}`)
      const end = cache.endOffsetFor(epoch, log.logEndOffset)
      if (end >= 0) return end
      return cache.entries.some(e => e.epoch < epoch) ? -1 : NO_EPOCH_HISTORY
    },
    async nextEpochAfter(epoch) {
      asked.push(`next ${epoch}`)
      return cache.nextEpochAfter(epoch)
    },
  }
}

/** The follower then fetches what it lacks: its log must equal the leader's. */
function fetchRest(follower: FakeLog, leader: FakeLog): void {
  follower.records.push(...leader.records.slice(follower.logEndOffset))
}

describe('reconciling a follower with its new leader', () => {
  it('keeps records above its high watermark that the new leader also has (acks=all data survives re-notification)', async () => {
    // Leader re-elected at epoch 1 after the follower had fetched 0..10 but only learned HW 6.
    const leaderLog = new FakeLog(written([0, 10], [1, 3]), 10)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 0, startOffset: 0 },
        { epoch: 1, startOffset: 10 },
      ]),
      leaderLog,
    )
    const followerLog = new FakeLog(written([0, 10]), 6)
    const followerCache = await cacheOf([{ epoch: 0, startOffset: 0 }])
    const result = await syncWithLeader(followerLog, followerCache, leader, 1)
    expect(result).toEqual({ truncatedTo: null, leaderEpoch: 1 })
    expect(followerLog.logEndOffset).toBe(10)
    expect(followerCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 10 },
    ])
  })

  it("cuts a deposed leader's unreplicated tail at the new leader's start", async () => {
    const leaderLog = new FakeLog(written([0, 5], [2, 7]), 12)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 0, startOffset: 0 },
        { epoch: 2, startOffset: 5 },
      ]),
      leaderLog,
    )
    const followerLog = new FakeLog(written([0, 5], [1, 4]), 5)
    const followerCache = await cacheOf([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 5 },
    ])
    const result = await syncWithLeader(followerLog, followerCache, leader, 2)
    expect(result).toEqual({ truncatedTo: 5, leaderEpoch: 2 })
    fetchRest(followerLog, leaderLog)
    expect(followerLog.records).toEqual(leaderLog.records)
    expect(followerCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 5 },
    ])
  })

  it('finds a divergence below an epoch the leader never had (older epochs asked in turn)', async () => {
    // Epoch 2 (another leader) rewrote from 30 what epoch 1 had written there; the follower was
    // leader at epoch 3 on top of its epoch-1 records; the leader followed epoch 2, then led at 5.
    const leaderLog = new FakeLog(written([1, 30], [2, 40], [5, 10]), 80)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 1, startOffset: 0 },
        { epoch: 2, startOffset: 30 },
        { epoch: 5, startOffset: 70 },
      ]),
      leaderLog,
    )
    const followerLog = new FakeLog(written([1, 50], [3, 30]), 30)
    const followerCache = await cacheOf([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 50 },
    ])
    const result = await syncWithLeader(followerLog, followerCache, leader, 5)
    expect(result).toEqual({ truncatedTo: 30, leaderEpoch: 5 })
    fetchRest(followerLog, leaderLog)
    expect(followerLog.records).toEqual(leaderLog.records)
    expect(followerCache.entries).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 30 },
      { epoch: 5, startOffset: 70 },
    ])
    expect(leader.asked).toEqual(['end 3', 'end 1', 'next 1', 'end 1', 'next 2', 'end 2', 'next 5'])
  })

  it('falls back to the high watermark when the leader has no history at or below the epoch', async () => {
    const leaderLog = new FakeLog(written([0, 100], [5, 30]), 120)
    const leader = leaderOf(await cacheOf([{ epoch: 5, startOffset: 100 }]), leaderLog)
    const followerLog = new FakeLog(written([1, 120]), 100)
    const followerCache = await cacheOf([{ epoch: 1, startOffset: 0 }])
    const result = await syncWithLeader(followerLog, followerCache, leader, 5)
    expect(result.truncatedTo).toBe(100)
    expect(followerCache.entries).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 5, startOffset: 100 },
    ])
  })

  it('truncates a log without epoch history to its high watermark (the Fluss 0.9.1 behaviour)', async () => {
    const leaderLog = new FakeLog(written([4, 30]), 30)
    const leader = leaderOf(await cacheOf([{ epoch: 4, startOffset: 0 }]), leaderLog)
    const followerLog = new FakeLog(written([4, 20]), 15)
    const followerCache = await cacheOf([])
    expect(await syncWithLeader(followerLog, followerCache, leader, 4)).toEqual({
      truncatedTo: 15,
      leaderEpoch: 4,
    })
    expect(followerCache.entries).toEqual([{ epoch: 4, startOffset: 15 }])
  })

  it("an empty follower learns the epochs covering what it will fetch from the leader's log", async () => {
    const leaderLog = new FakeLog(written([0, 10], [1, 10]), 20)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 0, startOffset: 0 },
        { epoch: 1, startOffset: 10 },
      ]),
      leaderLog,
    )
    const followerLog = new FakeLog([], 0)
    const followerCache = await cacheOf([])
    expect(await syncWithLeader(followerLog, followerCache, leader, 1)).toEqual({
      truncatedTo: null,
      leaderEpoch: 1,
    })
    expect(followerCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 10 },
    ])
  })

  it('asks again later (retriable) while the leader has not taken the notified epoch', async () => {
    const leaderLog = new FakeLog(written([0, 10]), 10)
    const leaderCache = await cacheOf([{ epoch: 0, startOffset: 0 }])
    const followerLog = new FakeLog(written([0, 10]), 10)
    const followerCache = await cacheOf([{ epoch: 0, startOffset: 0 }])
    const early = await syncWithLeader(followerLog, followerCache, leaderOf(leaderCache, leaderLog), 1).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(early, 'LEADER_NOT_AVAILABLE_EXCEPTION')).toBe(true)
    expect((early as Error & { retriable: boolean }).retriable).toBe(true)
    leaderCache.assign(1, 10)
    const result = await syncWithLeader(followerLog, followerCache, leaderOf(leaderCache, leaderLog), 1)
    expect(result).toEqual({ truncatedTo: null, leaderEpoch: 1 })
    expect(followerCache.latestEpoch).toBe(1)
  })

  it('persists what it learned before the follower fetches', async () => {
    const leaderLog = new FakeLog(written([0, 3], [2, 2]), 5)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 0, startOffset: 0 },
        { epoch: 2, startOffset: 3 },
      ]),
      leaderLog,
    )
    await mkdir(join(dir, 'persisted'))
    const followerCache = await LeaderEpochCache.load(join(dir, 'persisted'))
    followerCache.assign(0, 0)
    await syncWithLeader(new FakeLog(written([0, 3]), 3), followerCache, leader, 2)
    expect((await LeaderEpochCache.load(join(dir, 'persisted'))).entries).toEqual(followerCache.entries)
  })

  it('does not apply a plan to a log that changed meanwhile (a late append from the old leader)', async () => {
    const leaderLog = new FakeLog(written([0, 5], [1, 2]), 5)
    const leader = leaderOf(
      await cacheOf([
        { epoch: 0, startOffset: 0 },
        { epoch: 1, startOffset: 5 },
      ]),
      leaderLog,
    )
    const followerLog = new FakeLog(written([0, 5]), 5)
    const followerCache = await cacheOf([{ epoch: 0, startOffset: 0 }])
    const plan = await planSync(followerLog, followerCache, leader, 1)
    expect(plan).toMatchObject({ truncateTo: null, leaderEpoch: 1 })
    followerLog.records.push(0, 0)
    const stale = await applySync(followerLog, followerCache, plan).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(stale, 'LEADER_NOT_AVAILABLE_EXCEPTION')).toBe(true)
    expect(followerCache.latestEpoch).toBe(0)
    expect(await syncWithLeader(followerLog, followerCache, leader, 1)).toEqual({
      truncatedTo: 5,
      leaderEpoch: 1,
    })
  })
})
