import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { peerAvailable } from '@sluice/core/testing'
import { DataTypes, notNull } from '@sluice/core/types'
import { parseFlussOffsets } from '@sluice/lake/iceberg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IcebergTable } from '../iceberg/table.js'
import { PYICEBERG_PEERS, pyIso, pyiceberg } from '../testing/pyiceberg.js'
import {
  expectedLogRows,
  expectedPkRows,
  type TestBucketLog,
  type TieringTestEnv,
  tieringTestEnv,
} from '../testing/tiering-env.js'
import { runTieringRound } from './tiering-round.js'

/**
 * pyiceberg reads the tables tiering rounds produce, and at every snapshot its rows equal the log
 * content at the snapshot's recorded `fluss-offsets` (merge-on-read applied by the helper script
 * for primary-key tables, which pyiceberg cannot scan itself).
 */

type PyRow = Record<string, unknown>

/** A lake row as the pyiceberg script reports it. */
function asPy(names: readonly string[], row: Row): PyRow {
  const out: PyRow = {}
  names.forEach((n, i) => {
    out[n] = typeof row[i] === 'bigint' ? Number(row[i]) : row[i]
  })
  const ts = row[names.length + 2] as { millis: number }
  return {
    ...out,
    __bucket: row[names.length],
    __offset: Number(row[names.length + 1]),
    __timestamp: pyIso(ts.millis, 0),
  }
}

const canon = (rows: readonly PyRow[]) => rows.map(r => JSON.stringify(Object.entries(r).sort())).sort()

function offsetsOf(summary: Record<string, string>): (log: TestBucketLog) => number {
  const offsets = parseFlussOffsets(summary['fluss-offsets'])
  return log =>
    offsets.find(o => o.bucket === log.ref.bucket && o.partitionId === log.ref.partitionId)?.offset ?? 0
}

const SUITE = 'pyiceberg reads tables written by tiering rounds'

describe.skipIf(!peerAvailable(SUITE, PYICEBERG_PEERS))(SUITE, () => {
  let env: TieringTestEnv
  beforeAll(async () => {
    env = await tieringTestEnv()
  })
  afterAll(() => env.close())

  const read = async (info: { tablePath: IcebergTable['path'] }, snapshots: bigint[]) => {
    const state = await new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog }).load()
    return pyiceberg(state.pointer.metadataLocation, snapshots)
  }

  it('log table over two rounds', { timeout: 120_000 }, async () => {
    const info = await env.createTable('py_log', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['name', DataTypes.STRING()],
      ],
      buckets: 2,
    })
    const logs = [env.log(info, 0), env.log(info, 1)]
    const snapshots: bigint[] = []
    for (const round of [0, 1]) {
      for (const log of logs) {
        log.append([0, 1, 2].map(i => [BigInt(round * 10 + i), i === 1 ? null : `n${i}`]))
        await log.seal()
      }
      snapshots.push((await runTieringRound(env.deps(), info)).snapshotId as bigint)
    }
    const py = await read(info, snapshots)
    for (const id of snapshots) {
      const s = py.snapshots[String(id)]
      expect(canon(s.scan ?? [])).toEqual(
        canon(expectedLogRows(logs, offsetsOf(s.summary)).map(r => asPy(['id', 'name'], r))),
      )
    }
  })

  it('primary-key table with updates and deletes across three rounds', { timeout: 120_000 }, async () => {
    const info = await env.createTable('py_pk', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['name', DataTypes.STRING()],
        ['qty', DataTypes.INT()],
      ],
      primaryKey: ['id'],
      buckets: 1,
    })
    const log = env.log(info, 0)
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const rounds: [Row, ChangeType][][] = [
      [
        [[1n, 'a', 1], I],
        [[2n, 'b', 2], I],
        [[3n, 'c', 3], I],
      ],
      [
        [[2n, 'b', 2], UB],
        [[2n, 'b2', 20], UA],
        [[3n, 'c', 3], D],
        [[4n, 'd', 4], I],
      ],
      [
        [[1n, 'a', 1], D],
        [[3n, 'c3', 33], I],
        [[4n, 'd', 4], UB],
        [[4n, 'd4', 44], UA],
      ],
    ]
    const snapshots: bigint[] = []
    for (const changes of rounds) {
      log.append(
        changes.map(c => c[0]),
        changes.map(c => c[1]),
      )
      await log.seal()
      snapshots.push((await runTieringRound(env.deps(), info)).snapshotId as bigint)
    }
    const py = await read(info, snapshots)
    for (const id of snapshots) {
      const s = py.snapshots[String(id)]
      const expected = expectedPkRows([log], [0], offsetsOf(s.summary)).map(r =>
        asPy(['id', 'name', 'qty'], r),
      )
      expect(canon(s.rows)).toEqual(canon(expected))
    }
  })

  it('partitioned table', { timeout: 120_000 }, async () => {
    const info = await env.createTable('py_part', {
      columns: [
        ['dt', notNull(DataTypes.STRING())],
        ['id', notNull(DataTypes.BIGINT())],
      ],
      partitionKeys: ['dt'],
      buckets: 2,
    })
    const logs: TestBucketLog[] = []
    for (const dt of ['2024-01-01', '2024-01-02']) {
      const p = await env.createPartition(info, dt)
      for (const bucket of [0, 1]) {
        const log = env.log(info, bucket, p.partitionId)
        log.append([1, 2].map(i => [dt, BigInt(bucket * 100 + i)]))
        await log.seal()
        logs.push(log)
      }
    }
    const r = await runTieringRound(env.deps(), info)
    const py = await read(info, [r.snapshotId as bigint])
    const s = py.snapshots[String(r.snapshotId)]
    expect(canon(s.scan ?? [])).toEqual(
      canon(expectedLogRows(logs, offsetsOf(s.summary)).map(x => asPy(['dt', 'id'], x))),
    )
  })
})
