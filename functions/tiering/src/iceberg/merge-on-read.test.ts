import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { scanSnapshot } from '@sluice/lake/scan'
import { PARTITIONED_PK_TABLE, PK_TABLE, tableInfoOf } from '@sluice/lake/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type TempLake, tempLake, tierPkRound } from '../testing/temp-lake.js'
import { type ChangeRecord, collapseChangelog } from './changelog.js'

const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType

function changes(start: number, list: readonly [ChangeType, Row][]): ChangeRecord[] {
  return list.map(([changeType, row], i) => ({
    changeType,
    row,
    offset: start + i,
    timestampMs: 1_000 + start + i,
  }))
}

const userValues = (rows: Row[]) =>
  rows.map(r => r.slice(0, -3)).sort((a, b) => String(a).localeCompare(String(b)))

describe('merge-on-read primary-key tables', () => {
  let lake: TempLake
  beforeEach(async () => {
    lake = await tempLake()
  })
  afterEach(() => lake.close())

  it('collapses each round per key and reads back the table state after every commit', async () => {
    const info = tableInfoOf(PK_TABLE)
    const table = lake.table(info)
    const s0 = await table.createIfAbsent(info)
    const r1 = await tierPkRound(
      table,
      s0,
      0,
      changes(0, [
        [I, [1n, 'a', 1]],
        [I, [2n, 'b', 2]],
        [I, [3n, 'c', 3]],
        [UB, [3n, 'c', 3]],
        [UA, [3n, 'c2', 3]],
      ]),
      5,
    )
    expect(r1.state.currentSnapshot?.summary.operation).toBe('append')
    const r2 = await tierPkRound(
      table,
      r1.state,
      0,
      changes(5, [
        [UB, [2n, 'b', 2]],
        [UA, [2n, 'b2', 20]],
        [D, [3n, 'c2', 3]],
        [I, [4n, 'd', 4]],
      ]),
      9,
    )
    expect(r2.state.currentSnapshot?.summary).toMatchObject({
      operation: 'overwrite',
      'added-equality-deletes': '2',
      'added-records': '2',
    })
    const r3 = await tierPkRound(
      table,
      r2.state,
      0,
      changes(9, [
        [UB, [1n, 'a', 1]],
        [UA, [1n, 'a3', 30]],
        [D, [4n, 'd', 4]],
        [I, [3n, 'c4', 40]],
      ]),
      13,
    )

    const md = r3.state.metadata
    const at = async (s: bigint) => userValues(await scanSnapshot(lake.io, md, s))
    expect(await at(r1.snapshotId)).toEqual([
      [1n, 'a', 1],
      [2n, 'b', 2],
      [3n, 'c2', 3],
    ])
    expect(await at(r2.snapshotId)).toEqual([
      [1n, 'a', 1],
      [2n, 'b2', 20],
      [4n, 'd', 4],
    ])
    expect(await at(r3.snapshotId)).toEqual([
      [1n, 'a3', 30],
      [2n, 'b2', 20],
      [3n, 'c4', 40],
    ])
    const current = await scanSnapshot(lake.io, md)
    const byId = new Map(current.map(r => [r[0], r]))
    expect(byId.get(1n)?.slice(-3, -1)).toEqual([0, 10n])
    expect(byId.get(3n)?.slice(-3, -1)).toEqual([0, 12n])
    expect(r3.state.flussOffsets).toEqual([{ bucket: 0, offset: 13 }])
  })

  it('scopes deletes to their partition and records partitioned fluss-offsets', async () => {
    const info = tableInfoOf(PARTITIONED_PK_TABLE)
    const table = lake.table(info)
    const s0 = await table.createIfAbsent(info)
    const p1 = { partitionId: 11, partitionName: 'dt=2024-01-01' }
    const p2 = { partitionId: 12, partitionName: 'dt=2024-01-02' }
    const a = await tierPkRound(table, s0, 1, changes(0, [[I, ['2024-01-01', 1n, 'x']]]), 1, p1)
    const b = await tierPkRound(table, a.state, 1, changes(0, [[I, ['2024-01-02', 1n, 'y']]]), 1, p2)
    const c = await tierPkRound(table, b.state, 1, changes(1, [[D, ['2024-01-01', 1n, 'x']]]), 2, p1)
    expect(userValues(await scanSnapshot(lake.io, c.state.metadata))).toEqual([['2024-01-02', 1n, 'y']])
    expect(c.state.currentSnapshot?.summary['fluss-offsets']).toBe(
      '[{"partition_id":11,"partition_name":"dt=2024-01-01","bucket":1,"offset":2},{"partition_id":12,"partition_name":"dt=2024-01-02","bucket":1,"offset":1}]',
    )
    expect(c.state.flussOffsets).toEqual([
      { partitionId: 11, partitionName: 'dt=2024-01-01', bucket: 1, offset: 2 },
      { partitionId: 12, partitionName: 'dt=2024-01-02', bucket: 1, offset: 1 },
    ])
  })
})

describe('collapseChangelog', () => {
  const pk = [0]
  it('needs a delete exactly when the first change may hit an earlier snapshot', () => {
    const out = collapseChangelog(
      changes(0, [
        [I, [1n, 'a']],
        [UB, [1n, 'a']],
        [UA, [1n, 'b']],
        [D, [2n, 'x']],
        [I, [2n, 'y']],
        [UB, [3n, 'p']],
        [UA, [3n, 'q']],
        [I, [4n, 'z']],
        [D, [4n, 'z']],
        [D, [5n, 'gone']],
      ]),
      pk,
    )
    expect(out.deleteKeys).toEqual([[2n], [3n], [5n]])
    expect(out.upserts.map(u => [u.row, u.offset])).toEqual([
      [[1n, 'b'], 2],
      [[2n, 'y'], 4],
      [[3n, 'q'], 6],
    ])
  })

  it('deletes every touched key when the changelog has no before-images', () => {
    const out = collapseChangelog(
      changes(0, [
        [UA, [1n, 'a']],
        [I, [2n, 'b']],
      ]),
      pk,
      false,
    )
    expect(out.deleteKeys).toEqual([[1n], [2n]])
    expect(out.upserts.length).toBe(2)
  })

  it('refuses append-only records', () => {
    expect(() => collapseChangelog(changes(0, [[ChangeType.APPEND_ONLY, [1n]]]), pk)).toThrow(
      expect.objectContaining({ name: 'FlussError(INVALID_REQUEST)' }),
    )
  })
})
