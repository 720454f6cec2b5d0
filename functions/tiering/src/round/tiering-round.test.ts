import { ChangeType } from '@sluice/core/record'
import { Decimal, type Row, Timestamp } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { scanSnapshot } from '@sluice/lake/scan'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IcebergTable } from '../iceberg/table.js'
import {
  byBucketAndOffset,
  expectedLogRows,
  expectedPkRows,
  type TestBucketLog,
  type TieringTestEnv,
  tieringTestEnv,
} from '../testing/tiering-env.js'
import { readLakeItem } from './lake-item.js'
import { runTieringRound } from './tiering-round.js'

const LOG_COLUMNS = [
  ['id', notNull(DataTypes.BIGINT())],
  ['name', DataTypes.STRING()],
  ['amount', DataTypes.DECIMAL(10, 2)],
  ['ts', DataTypes.TIMESTAMP_LTZ(3)],
  ['small', DataTypes.SMALLINT()],
] as const

function logRow(id: number): Row {
  return [
    BigInt(id),
    id % 3 === 0 ? null : `n${id}`,
    new Decimal(BigInt(id * 7), 2),
    new Timestamp(1_700_000_000_000 + id),
    id % 100,
  ]
}

let env: TieringTestEnv
beforeEach(async () => {
  env = await tieringTestEnv()
})
afterEach(() => env.close())

async function lakeRows(info: { tablePath: IcebergTable['path'] }): Promise<Row[]> {
  const table = new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog })
  return scanSnapshot(env.io, (await table.load()).metadata)
}

function appendRows(log: TestBucketLog, from: number, count: number, batchRows = 4): void {
  for (let i = 0; i < count; i += batchRows) {
    log.append(Array.from({ length: Math.min(batchRows, count - i) }, (_, k) => logRow(from + i + k)))
  }
}

describe('tiering round: log tables', () => {
  it('tiers sealed segments only, resumes where it stopped, never duplicates', async () => {
    const info = await env.createTable('events', { columns: LOG_COLUMNS, buckets: 2 })
    const logs = [env.log(info, 0), env.log(info, 1)]
    appendRows(logs[0], 0, 10)
    appendRows(logs[1], 100, 5)
    await logs[0].seal()
    await logs[1].seal()
    appendRows(logs[0], 10, 3) // the hot tail: not uploaded, never tiered
    const first = await runTieringRound(env.deps(), info)
    expect(first).toMatchObject({ status: 'committed', records: 15, repaired: false })
    expect(await lakeRows(info)).toHaveLength(15)
    expect(byBucketAndOffset(await lakeRows(info))).toEqual(
      byBucketAndOffset(expectedLogRows(logs, l => l.tieredEnd)),
    )
    const item = (await readLakeItem(env.metaStore, info.tableId)).item
    expect(item.tieredOffsets.map(o => [o.bucket, o.offset])).toEqual([
      [0, 10],
      [1, 5],
    ])
    expect(item).toMatchObject({ claimExpiresAtMs: 0, lastError: null, lastRoundRecords: 15 })
    expect(item.lastSnapshotId).toBe(first.snapshotId)

    expect(await runTieringRound(env.deps(), info)).toMatchObject({ status: 'idle', records: 0 })
    await logs[0].seal()
    appendRows(logs[1], 105, 2)
    await logs[1].seal()
    const third = await runTieringRound(env.deps(), info)
    expect(third).toMatchObject({ status: 'committed', records: 5 })
    expect(byBucketAndOffset(await lakeRows(info))).toEqual(
      byBucketAndOffset(expectedLogRows(logs, l => l.endOffset)),
    )
  })

  it('respects the byte budget, stopping at batch boundaries, until the lake catches up', async () => {
    const info = await env.createTable('budget', { columns: LOG_COLUMNS, buckets: 1 })
    const log = env.log(info, 0)
    appendRows(log, 0, 40, 5)
    await log.seal()
    let rounds = 0
    for (;;) {
      const r = await runTieringRound(env.deps({ options: { maxRoundBytes: 1024 } }), info)
      if (r.status === 'idle') break
      expect(r.status).toBe('committed')
      expect((r.records ?? 0) % 5).toBe(0)
      rounds++
    }
    expect(rounds).toBeGreaterThan(2)
    expect(byBucketAndOffset(await lakeRows(info))).toEqual(
      byBucketAndOffset(expectedLogRows([log], l => l.endOffset)),
    )
  })

  it('tiers every partition of a partitioned table into its identity partition', async () => {
    const info = await env.createTable('daily', {
      columns: [
        ['dt', notNull(DataTypes.STRING())],
        ['id', DataTypes.BIGINT()],
      ],
      partitionKeys: ['dt'],
      buckets: 2,
    })
    const p1 = await env.createPartition(info, '2024-01-01')
    const p2 = await env.createPartition(info, '2024-01-02')
    const logs: TestBucketLog[] = []
    for (const p of [p1, p2]) {
      for (const bucket of [0, 1]) {
        const log = env.log(info, bucket, p.partitionId)
        log.append([0, 1, 2].map(i => [p.partitionName, BigInt(bucket * 10 + i)]))
        await log.seal()
        logs.push(log)
      }
    }
    const r = await runTieringRound(env.deps(), info)
    expect(r).toMatchObject({ status: 'committed', records: 12 })
    const table = new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog })
    const state = await table.load()
    expect(state.flussOffsets).toHaveLength(4)
    expect(state.flussOffsets[0]).toMatchObject({ partitionId: p1.partitionId, partitionName: '2024-01-01' })
    const sort = (rows: Row[]) =>
      rows.map(r => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}` : v))).sort()
    expect(sort(await lakeRows(info))).toEqual(sort(expectedLogRows(logs, l => l.endOffset)))
  })

  it('refuses tables whose log is not ARROW with INVALID_TABLE_EXCEPTION', async () => {
    const info = await env.createTable('indexed', {
      columns: LOG_COLUMNS,
      buckets: 1,
      properties: { 'table.log.format': 'INDEXED' },
    })
    expect(await runTieringRound(env.deps(), info)).toMatchObject({
      status: 'failed',
      errorCode: 'INVALID_TABLE_EXCEPTION',
    })
  })
})

describe('tiering round: primary-key tables', () => {
  it('collapses changelogs per round; updates and deletes across rounds read back exactly', async () => {
    const info = await env.createTable('orders', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['name', DataTypes.STRING()],
        ['qty', DataTypes.INT()],
      ],
      primaryKey: ['id'],
      buckets: 2,
    })
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const logs = [env.log(info, 0), env.log(info, 1)]
    const rounds: [number, Row, ChangeType][][] = [
      [
        [0, [1n, 'a', 1], I],
        [0, [2n, 'b', 2], I],
        [1, [3n, 'c', 3], I],
        [0, [1n, 'a', 1], UB],
        [0, [1n, 'a2', 10], UA],
      ],
      [
        [0, [2n, 'b', 2], D],
        [1, [3n, 'c', 3], UB],
        [1, [3n, 'c2', 30], UA],
        [1, [4n, 'd', 4], I],
      ],
      [
        [0, [2n, 'b3', 5], I],
        [1, [4n, 'd', 4], D],
        [1, [3n, 'c2', 30], D],
        [1, [3n, 'c4', 40], I],
      ],
    ]
    for (const changes of rounds) {
      for (const [bucket, row, type] of changes) logs[bucket].append([row], [type])
      logs[1].append([], []) // an empty changelog batch still takes an offset
      for (const log of logs) await log.seal()
      const r = await runTieringRound(env.deps(), info)
      expect(r.status).toBe('committed')
      expect(byBucketAndOffset(await lakeRows(info))).toEqual(
        byBucketAndOffset(expectedPkRows(logs, [0], l => l.tieredEnd)),
      )
    }
    const state = await new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog }).load()
    expect(state.flussOffsets.map(o => o.offset)).toEqual([logs[0].endOffset, logs[1].endOffset])
  })

  it('bounds a round by the changelog budget and converges over several rounds', async () => {
    const info = await env.createTable('budgeted', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['qty', DataTypes.INT()],
      ],
      primaryKey: ['id'],
      buckets: 1,
    })
    const log = env.log(info, 0)
    const live = new Map<bigint, Row>()
    for (let i = 0; i < 30; i++) {
      const id = BigInt(i % 7)
      const before = live.get(id)
      if (before === undefined) {
        live.set(id, [id, i])
        log.append([[id, i]], [ChangeType.INSERT])
      } else if (i % 5 === 4) {
        live.delete(id)
        log.append([before], [ChangeType.DELETE])
      } else {
        live.set(id, [id, i])
        log.append([before, [id, i]], [ChangeType.UPDATE_BEFORE, ChangeType.UPDATE_AFTER])
      }
    }
    await log.seal()
    let rounds = 0
    while (
      (await runTieringRound(env.deps({ options: { maxChangelogRoundBytes: 2048 } }), info)).status ===
      'committed'
    )
      rounds++
    expect(rounds).toBeGreaterThan(2)
    expect(byBucketAndOffset(await lakeRows(info))).toEqual(
      byBucketAndOffset(expectedPkRows([log], [0], l => l.endOffset)),
    )
  })
})
