import { ChangeType } from '@sluice/core/record'
import { Decimal, type Row, Timestamp, type Value } from '@sluice/core/row'
import { peerAvailable } from '@sluice/core/testing'
import { type DataType, DataTypes, notNull } from '@sluice/core/types'
import { parseFlussOffsets } from '@sluice/lake/iceberg'
import { scanSnapshot } from '@sluice/lake/scan'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IcebergTable } from '../iceberg/table.js'
import { PYICEBERG_PEERS, pyIso, pyiceberg } from '../testing/pyiceberg.js'
import {
  byBucketAndOffset,
  expectedLogRows,
  expectedPkRows,
  type TestBucketLog,
  type TieringTestEnv,
  tieringTestEnv,
} from '../testing/tiering-env.js'
import { runTieringRound } from './tiering-round.js'

/**
 * Tiering tables with ARRAY, MAP and ROW columns: log tables (batches passed through at buffer
 * level) and primary-key tables (rows merged by key), read back by our merge-on-read scan and by
 * pyiceberg (by field id, nested ids included).
 */

const SAMPLE = DataTypes.ROW([
  { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 0 },
  { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 },
])
const SCORE = DataTypes.ROW([
  { name: 'level', type: DataTypes.TINYINT(), fieldId: 0 },
  { name: 'amount', type: DataTypes.DECIMAL(8, 2), fieldId: 0 },
  { name: 'tags', type: DataTypes.ARRAY(DataTypes.STRING()), fieldId: 0 },
])
const COLUMNS: [string, DataType][] = [
  ['id', notNull(DataTypes.BIGINT())],
  ['samples', DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), SAMPLE))],
  ['scores', DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(SCORE))],
  ['by_day', DataTypes.MAP(DataTypes.INT(), DataTypes.BOOLEAN())],
]
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

function row(id: number, version = 0): Row {
  const n = id + version * 100
  return [
    BigInt(id),
    id % 4 === 3
      ? null
      : [
          map([`s${n}`, [[n + 0.5, null], new Timestamp(1_700_000_000_000 + n)]], ['none', null]),
          null,
          map(),
        ],
    id % 5 === 4
      ? map()
      : map([`u${n}`, [[n % 100, new Decimal(BigInt(n * 25), 2), ['a', null]], null]], ['empty', []]),
    id % 3 === 2 ? null : map([n, true], [-n - 1, null]),
  ]
}

let env: TieringTestEnv
beforeEach(async () => {
  env = await tieringTestEnv()
})
afterEach(() => env.close())

async function lake(info: { tablePath: IcebergTable['path'] }) {
  return new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog }).load()
}

async function lakeRows(info: { tablePath: IcebergTable['path'] }): Promise<Row[]> {
  return scanSnapshot(env.io, (await lake(info)).metadata)
}

/** A lake value as pyiceberg reports it (pyarrow's `to_pylist`, then the script's JSON). */
function asPy(type: DataType, v: Value): unknown {
  if (v === null) return null
  switch (type.type) {
    case 'BIGINT':
      return Number(v)
    case 'DECIMAL':
      return (v as Decimal).toString()
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return pyIso((v as Timestamp).millis, 0)
    case 'ARRAY':
      return (v as Value[]).map(e => asPy(type.elementType, e))
    case 'MAP':
      return [...(v as Map<Value, Value>)].map(([k, e]) => [asPy(type.keyType, k), asPy(type.valueType, e)])
    case 'ROW':
      return Object.fromEntries(type.fields.map((f, i) => [f.name, asPy(f.type, (v as Value[])[i])]))
    default:
      return v
  }
}

function asPyRow(r: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  COLUMNS.forEach(([name, type], i) => {
    out[name] = asPy(type, r[i])
  })
  const n = COLUMNS.length
  return {
    ...out,
    __bucket: r[n],
    __offset: Number(r[n + 1]),
    __timestamp: pyIso((r[n + 2] as Timestamp).millis, 0),
  }
}

const canon = (rows: readonly Record<string, unknown>[]) => rows.map(r => JSON.stringify(r)).sort()

function offsetsOf(summary: Record<string, string>): (log: TestBucketLog) => number {
  const offsets = parseFlussOffsets(summary['fluss-offsets'])
  return log => offsets.find(o => o.bucket === log.ref.bucket)?.offset ?? 0
}

describe('tiering tables with nested columns', () => {
  it('log tables: batches pass through with their nested columns, over two rounds', async () => {
    const info = await env.createTable('nested_log', { columns: COLUMNS, buckets: 2 })
    const logs = [env.log(info, 0), env.log(info, 1)]
    const snapshots: bigint[] = []
    for (const round of [0, 1]) {
      for (const [b, log] of logs.entries()) {
        log.append([0, 1, 2, 3, 4].map(i => row(round * 10 + b * 5 + i)))
        log.append([row(round * 10 + b * 5 + 9)])
        await log.seal()
      }
      snapshots.push((await runTieringRound(env.deps(), info)).snapshotId as bigint)
    }
    expect(byBucketAndOffset(await lakeRows(info))).toEqual(
      byBucketAndOffset(expectedLogRows(logs, l => l.tieredEnd)),
    )
    const schema = (await lake(info)).metadata.schemas[0]
    expect(schema.fields[1].type).toMatchObject({
      type: 'list',
      element: { type: 'map', value: { type: 'struct' } },
    })

    const SUITE = 'pyiceberg reads a tiered log table with nested columns'
    if (!peerAvailable(SUITE, PYICEBERG_PEERS)) return
    const py = pyiceberg((await lake(info)).pointer.metadataLocation, snapshots)
    for (const id of snapshots) {
      const s = py.snapshots[String(id)]
      expect(canon(s.scan ?? [])).toEqual(canon(expectedLogRows(logs, offsetsOf(s.summary)).map(asPyRow)))
    }
  }, 120_000)

  it('primary-key tables: nested value columns merged by key across rounds', async () => {
    const info = await env.createTable('nested_pk', { columns: COLUMNS, primaryKey: ['id'], buckets: 1 })
    const log = env.log(info, 0)
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const rounds: [Row, ChangeType][][] = [
      [0, 1, 2, 3, 4].map(i => [row(i), I]),
      [
        [row(1), UB],
        [row(1, 1), UA],
        [row(2), D],
        [row(5), I],
      ],
      [
        [row(0), D],
        [row(2, 2), I],
        [row(3), UB],
        [row(3, 3), UA],
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
    const expected = expectedPkRows([log], [0], l => l.tieredEnd)
    const byId = (rows: Row[]) => [...rows].sort((a, b) => Number(a[0]) - Number(b[0]))
    expect(byId(await lakeRows(info))).toEqual(byId(expected))
    expect(expected.map(r => r[0])).toEqual([1n, 3n, 4n, 5n, 2n])

    const SUITE = 'pyiceberg reads a tiered primary-key table with nested columns'
    if (!peerAvailable(SUITE, PYICEBERG_PEERS)) return
    const py = pyiceberg((await lake(info)).pointer.metadataLocation, snapshots)
    for (const id of snapshots) {
      const s = py.snapshots[String(id)]
      expect(canon(s.rows)).toEqual(canon(expectedPkRows([log], [0], offsetsOf(s.summary)).map(asPyRow)))
    }
  }, 120_000)
})
