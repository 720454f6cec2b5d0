import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { isFlussError } from '@sluice/core/errors'
import { decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { TestingKvBatches } from '../testing/kv.js'
import {
  createTestReplica,
  followerFetch,
  leaderAndIsr,
  settle,
  type TestReplica,
} from '../testing/replica.js'

let t: TestReplica

afterEach(async () => {
  await t?.close()
})

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    e => e,
  )
}

/** A replica of a primary-key bucket (id INT key, v STRING) and batches of its rows. */
async function pkReplica(): Promise<{ t: TestReplica; rows: TestingKvBatches }> {
  t = await createTestReplica({ primaryKey: true })
  return { t, rows: new TestingKvBatches(t.replica.tableInfo.schema) }
}

const rowOf = (t: TestReplica, value: Buffer | null) =>
  value === null ? null : decodeCompactedRow(decodeValue(value).row, t.replica.tableInfo.rowType)

describe('the KvTablet a primary-key replica owns', () => {
  it('is opened for a leadership; a put appends its changelog and moves the high watermark as far as flushed', async () => {
    const { t, rows } = await pkReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    const put = await t.replica.putRecordsToLeader(
      rows.batch([
        [1, 'a'],
        [2, 'b'],
        [1, 'c'],
      ]),
      1,
      {},
    )
    expect(put).toMatchObject({ firstOffset: 0, lastOffset: 3, duplicate: false })
    const kv = t.replica.kvTablet
    expect(kv?.flushedOffset).toBe(4)
    expect(t.replica.logTablet.highWatermark).toBe(4)
    const values = await kv?.lookup([rows.key([1, null]), rows.key([3, null])])
    expect(values?.map(v => rowOf(t, v))).toEqual([[1, 'c'], null])
  })

  it('never moves the high watermark past what its KvTablet flushed, nor while none is open', async () => {
    const { t, rows } = await pkReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1, 2]))
    await t.replica.putRecordsToLeader(rows.batch([[1, 'a']]), 1, {})
    // The follower has not fetched yet: the put is not replicated, nothing is flushed.
    expect(t.replica.logTablet.highWatermark).toBe(0)
    expect(t.replica.kvTablet?.flushedOffset).toBe(0)
    await t.kvManager?.closeKv(t.replica.tableBucket)
    await followerFetch(t.replica, 2, 1)
    await settle()
    expect(t.replica.logTablet.highWatermark).toBe(0)
    // A new leadership opens the KvTablet again (replaying the changelog), then the move happens.
    t.replica.makeLeader(leaderAndIsr(1, 1, [1, 2], [1, 2, 3], 1))
    await t.replica.whenLeaderReady()
    await followerFetch(t.replica, 2, 1)
    // The flush goes through RocksDB's thread pool: wait for it rather than for event-loop turns.
    await vi.waitFor(() => {
      expect(t.replica.logTablet.highWatermark).toBe(1)
      expect(t.replica.kvTablet?.flushedOffset).toBe(1)
    })
  })

  it('is closed when the leadership ends: puts and lookups are answered NOT_LEADER_OR_FOLLOWER', async () => {
    const { t, rows } = await pkReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    await t.replica.whenLeaderReady()
    const kv = t.replica.kvTablet
    t.replica.makeFollower(leaderAndIsr(2, 1, [2]))
    await t.replica.whenHooksSettled()
    expect(kv?.isClosed).toBe(true)
    const put = await rejection(t.replica.putRecordsToLeader(rows.batch([[1, 'a']]), 1, {}))
    expect(isFlussError(put, 'NOT_LEADER_OR_FOLLOWER')).toBe(true)
    expect((put as Error).message).toBe(
      'Leader not local for bucket TableBucket{tableId=7, bucket=0} on tabletServer 1',
    )
    expect(isFlussError(await rejection(t.replica.awaitLeaderKv()), 'NOT_LEADER_OR_FOLLOWER')).toBe(true)
  })

  it('is deleted with the replica (STOP_REPLICA with delete)', async () => {
    const { t, rows } = await pkReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    await t.replica.putRecordsToLeader(rows.batch([[1, 'a']]), 1, {})
    const kvDir = join(t.dir, 'data', 'db', `events-${t.replica.tableBucket.tableId}`, 'kv-0')
    await access(kvDir)
    t.replica.resign()
    await t.replica.whenHooksSettled()
    await t.replica.stopKv(true, false)
    expect(await rejection(access(kvDir))).toBeInstanceOf(Error)
  })

  it('does not exist for a log table', async () => {
    t = await createTestReplica()
    t.replica.makeLeader(leaderAndIsr(1, 0, [1]))
    const lookup = await rejection(t.replica.awaitLeaderKv())
    expect(isFlussError(lookup, 'NON_PRIMARY_KEY_TABLE_EXCEPTION')).toBe(true)
    expect(t.replica.kvTablet).toBeNull()
  })
})
