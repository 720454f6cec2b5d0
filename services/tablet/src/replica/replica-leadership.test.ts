import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FlussError, isFlussError } from '@sluice/core/errors'
import { MemoryLogRecords } from '@sluice/core/record'
import { afterEach, describe, expect, it } from 'vitest'
import { testBatch } from '../testing/log.js'
import {
  appendBatches,
  createTestReplica,
  followerFetch,
  leaderAndIsr,
  type TestReplica,
} from '../testing/replica.js'
import { LEADER_EPOCH_CHECKPOINT_FILE } from './leader-epoch-cache.js'
import { OffsetType } from './replica-types.js'

function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    e => e,
  )
}

const offsets = (records: Buffer) => [...new MemoryLogRecords(records).batches()].map(b => b.baseOffset)

describe('replica leadership', () => {
  let t: TestReplica

  afterEach(async () => {
    await t?.close()
  })

  it('records (epoch, log end) when it becomes leader, on disk before it takes a write', async () => {
    const ready = deferred()
    t = await createTestReplica({ hooks: { onBecomeLeader: () => ready.promise } })
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    const appending = t.replica.appendRecordsToLeader(testBatch(), 1)
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(t.replica.logTablet.logEndOffset).toBe(0)
    ready.resolve()
    expect((await appending).firstOffset).toBe(0)
    expect(await readFile(join(t.replica.logTablet.dir, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8')).toBe(
      '0\n1\n0 0\n',
    )

    t.replica.makeLeader(leaderAndIsr(1, 4, [1], [1, 2, 3], 4))
    await t.replica.whenLeaderReady()
    expect(t.replica.epochCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 4, startOffset: 1 },
    ])
    expect(t.replica.epochStartOffset).toBe(1)
  })

  it('refuses writes with the error of a failed onBecomeLeader (e.g. KV rebuild) until the next leadership', async () => {
    t = await createTestReplica({
      hooks: {
        onBecomeLeader: async () => Promise.reject(new FlussError('KV_STORAGE_EXCEPTION', 'replay failed')),
      },
    })
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    expect(isFlussError(await rejection(appendBatches(t.replica, 1)), 'KV_STORAGE_EXCEPTION')).toBe(true)
    expect(t.replica.logTablet.logEndOffset).toBe(0)
  })

  it('answers a write that finished after the leadership moved with NOT_LEADER_OR_FOLLOWER', async () => {
    const ready = deferred()
    t = await createTestReplica({ hooks: { onBecomeLeader: () => ready.promise } })
    t.replica.makeLeader(leaderAndIsr(1, 0, [1, 2]))
    const appending = rejection(appendBatches(t.replica, 1))
    t.replica.makeFollower(leaderAndIsr(2, 1, [2]))
    ready.resolve()
    expect(isFlussError(await appending, 'NOT_LEADER_OR_FOLLOWER')).toBe(true)
  })

  it('treats leader -1 (none elected) as no leader, and runs onBecomeFollower for a new follower epoch', async () => {
    const followerEpochs: number[] = []
    t = await createTestReplica({
      hooks: { onBecomeFollower: async replica => void followerEpochs.push(replica.leaderEpoch) },
    })
    expect(t.replica.makeFollower(leaderAndIsr(-1, 1, [2]))).toBe(true)
    expect(t.replica.leaderId).toBeNull()
    expect(t.replica.isLeader).toBe(false)
    t.replica.makeFollower(leaderAndIsr(2, 2, [2]))
    expect(t.replica.leaderId).toBe(2)
    await t.replica.whenHooksSettled()
    expect(followerEpochs.length).toBe(2)
  })

  it('serves a follower that has not learned the current epoch only the records before it', async () => {
    t = await createTestReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1, 2]))
    await appendBatches(t.replica, 2)
    t.replica.makeLeader(leaderAndIsr(1, 3, [1, 2], [1, 2, 3], 3))
    await appendBatches(t.replica, 2)
    expect(offsets((await followerFetch(t.replica, 2, 0)).records)).toEqual([0, 1])
    expect((await followerFetch(t.replica, 2, 2)).records.length).toBe(0)

    const ask = (offsetType: number, epoch: number) =>
      t.replica.getOffset({ followerServerId: 2, offsetType, startTimestamp: epoch })
    expect(await ask(OffsetType.LEADER_EPOCH_END_OFFSET, 0)).toBe(2)
    expect(await ask(OffsetType.LEADER_EPOCH_END_OFFSET, 3)).toBe(4)
    expect(await ask(OffsetType.LEADER_EPOCH_END_OFFSET, 2)).toBe(-1)
    expect(await ask(OffsetType.NEXT_LEADER_EPOCH, 0)).toBe(3)
    expect(await ask(OffsetType.LEADER_END_OFFSET_SNAPSHOT, 0)).toBe(2)
    expect((await followerFetch(t.replica, 2, 2)).records.length).toBe(0)
    // Asking past the current epoch tells the leader this follower knows it.
    expect(await ask(OffsetType.NEXT_LEADER_EPOCH, 3)).toBe(-1)
    expect(offsets((await followerFetch(t.replica, 2, 2)).records)).toEqual([2, 3])
  })

  it('refuses leader-epoch queries from clients and without an epoch', async () => {
    t = await createTestReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    const client = rejection(
      t.replica.getOffset({
        followerServerId: -1,
        offsetType: OffsetType.NEXT_LEADER_EPOCH,
        startTimestamp: 0,
      }),
    )
    expect(isFlussError(await client, 'INVALID_REQUEST')).toBe(true)
    const noEpoch = rejection(
      t.replica.getOffset({
        followerServerId: 2,
        offsetType: OffsetType.LEADER_EPOCH_END_OFFSET,
        startTimestamp: null,
      }),
    )
    expect(isFlussError(await noEpoch, 'INVALID_REQUEST')).toBe(true)
    const unknown = rejection(
      t.replica.getOffset({ followerServerId: -1, offsetType: 77, startTimestamp: null }),
    )
    expect(isFlussError(await unknown, 'INVALID_REQUEST')).toBe(true)
  })
})
