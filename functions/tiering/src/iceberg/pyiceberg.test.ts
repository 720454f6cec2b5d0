import { ChangeType } from '@sluice/core/record'
import { Decimal, type Row, Timestamp } from '@sluice/core/row'
import { peerAvailable } from '@sluice/core/testing'
import { LOG_TABLE, PARTITIONED_PK_TABLE, PK_TABLE, tableInfoOf } from '@sluice/lake/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PYICEBERG_PEERS, pyIso, pyiceberg, sortBy } from '../testing/pyiceberg.js'
import { type TempLake, tempLake, tierLogRound, tierPkRound } from '../testing/temp-lake.js'
import type { ChangeRecord } from './changelog.js'
import { expireSnapshots } from './maintenance/expire-snapshots.js'

const SUITE = 'pyiceberg reads Sluice lake tables'

describe.skipIf(!peerAvailable(SUITE, PYICEBERG_PEERS))(SUITE, () => {
  let lake: TempLake
  let now = 1_800_000_000_000
  beforeAll(async () => {
    lake = await tempLake(() => (now += 1000))
  })
  afterAll(() => lake.close())

  it('log table: every snapshot scans to the tiered rows', { timeout: 120_000 }, async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info)
    const rowOf = (id: number): Row => [
      BigInt(id),
      id === 1 ? null : `n${id}`,
      new Decimal(BigInt(id * 125), 2),
      new Timestamp(1_700_000_000_000 + id, 5000),
    ]
    let state = await table.createIfAbsent(info)
    const s1 = await tierLogRound(table, state, 0, 0, 3, rowOf)
    const s2 = await tierLogRound(table, s1.state, 1, 0, 2, rowOf)
    state = s2.state
    const read = pyiceberg(state.pointer.metadataLocation, [s1.snapshotId, s2.snapshotId])
    expect(read.current).toBe(String(s2.snapshotId))
    const first = read.snapshots[String(s1.snapshotId)]
    expect(sortBy(first.scan ?? [], '__offset')).toEqual(
      [0, 1, 2].map(id => ({
        id,
        name: id === 1 ? null : `n${id}`,
        amount: (id * 1.25).toFixed(2),
        event_time: pyIso(1_700_000_000_000 + id, 5),
        __bucket: 0,
        __offset: id,
        __timestamp: pyIso(1_000 + id, 0),
      })),
    )
    const second = read.snapshots[String(s2.snapshotId)]
    expect(sortBy(second.scan ?? [], '__bucket', '__offset').map(r => [r.__bucket, r.id])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
    ])
    expect(second.rows.length).toBe(5)
    expect(second.summary['fluss-offsets']).toBe('[{"bucket":0,"offset":3},{"bucket":1,"offset":2}]')
    expect(second.entries).toEqual([
      [1, 2, 2],
      [1, 1, 1],
    ])
    expect(read.files).toBe(2)
    expect(read.offsetBounds.map(b => [b.lower_bound, b.upper_bound]).sort()).toEqual([
      [0, 1],
      [0, 2],
    ])
  })

  it('primary-key table: merge-on-read across rounds, also after snapshot expiry', {
    timeout: 120_000,
  }, async () => {
    const info = tableInfoOf(PK_TABLE)
    const table = lake.table(info)
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const ch = (start: number, list: [ChangeType, Row][]): ChangeRecord[] =>
      list.map(([changeType, row], i) => ({ changeType, row, offset: start + i, timestampMs: start + i }))
    const s0 = await table.createIfAbsent(info)
    const r1 = await tierPkRound(
      table,
      s0,
      0,
      ch(0, [
        [I, [1n, 'a', 1]],
        [I, [2n, 'b', 2]],
        [I, [3n, 'c', 3]],
      ]),
      3,
    )
    const r2 = await tierPkRound(
      table,
      r1.state,
      0,
      ch(3, [
        [UB, [2n, 'b', 2]],
        [UA, [2n, 'b2', 20]],
        [D, [3n, 'c', 3]],
        [I, [4n, 'd', 4]],
      ]),
      7,
    )
    const r3 = await tierPkRound(
      table,
      r2.state,
      0,
      ch(7, [
        [UB, [1n, 'a', 1]],
        [UA, [1n, 'a3', 30]],
        [D, [4n, 'd', 4]],
        [I, [3n, 'c3', 33]],
      ]),
      11,
    )
    const ids = [r1.snapshotId, r2.snapshotId, r3.snapshotId]
    const user = (rows: Record<string, unknown>[]) => sortBy(rows, 'id').map(r => [r.id, r.name, r.qty])
    const read = pyiceberg(r3.state.metadata.location, ids)
    expect(read.current).toBe(String(r3.snapshotId))
    expect(user(read.snapshots[String(ids[0])].rows)).toEqual([
      [1, 'a', 1],
      [2, 'b', 2],
      [3, 'c', 3],
    ])
    expect(user(read.snapshots[String(ids[0])].scan ?? [])).toEqual([
      [1, 'a', 1],
      [2, 'b', 2],
      [3, 'c', 3],
    ])
    expect(user(read.snapshots[String(ids[1])].rows)).toEqual([
      [1, 'a', 1],
      [2, 'b2', 20],
      [4, 'd', 4],
    ])
    expect(user(read.snapshots[String(ids[2])].rows)).toEqual([
      [1, 'a3', 30],
      [2, 'b2', 20],
      [3, 'c3', 33],
    ])
    expect(read.snapshots[String(ids[2])].scanError).toMatch(/equality deletes/)
    expect(read.snapshots[String(ids[2])].operation).toBe('overwrite')

    now += 3_600_000
    const expired = await expireSnapshots(table, { olderThanMs: now, retainLast: 1 })
    expect(expired.expiredSnapshotIds.length).toBe(2)
    const after = pyiceberg(expired.state.pointer.metadataLocation, [r3.snapshotId])
    expect(user(after.snapshots[String(r3.snapshotId)].rows)).toEqual([
      [1, 'a3', 30],
      [2, 'b2', 20],
      [3, 'c3', 33],
    ])
  })

  it('partitioned primary-key table: identity partitions and scoped deletes', {
    timeout: 120_000,
  }, async () => {
    const info = tableInfoOf(PARTITIONED_PK_TABLE)
    const table = lake.table(info)
    const { INSERT: I, DELETE: D } = ChangeType
    const p1 = { partitionId: 1, partitionName: 'dt=2024-01-01' }
    const p2 = { partitionId: 2, partitionName: 'dt=2024-01-02' }
    const one = (changeType: ChangeType, row: Row, offset: number): ChangeRecord[] => [
      { changeType, row, offset, timestampMs: offset },
    ]
    const s0 = await table.createIfAbsent(info)
    const a = await tierPkRound(table, s0, 0, one(I, ['2024-01-01', 1n, 'x'], 0), 1, p1)
    const b = await tierPkRound(table, a.state, 0, one(I, ['2024-01-02', 1n, 'y'], 0), 1, p2)
    const c = await tierPkRound(table, b.state, 0, one(D, ['2024-01-01', 1n, 'x'], 1), 2, p1)
    const read = pyiceberg(c.state.pointer.metadataLocation, [b.snapshotId, c.snapshotId])
    const user = (rows: Record<string, unknown>[]) => sortBy(rows, 'dt').map(r => [r.dt, r.id, r.name])
    expect(user(read.snapshots[String(b.snapshotId)].scan ?? [])).toEqual([
      ['2024-01-01', 1, 'x'],
      ['2024-01-02', 1, 'y'],
    ])
    expect(user(read.snapshots[String(c.snapshotId)].rows)).toEqual([['2024-01-02', 1, 'y']])
  })
})
