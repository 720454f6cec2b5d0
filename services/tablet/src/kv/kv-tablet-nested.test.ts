import { type AggFunction, AggFunctions, Schema } from '@sluice/core/metadata'
import {
  CompactedKeyEncoder,
  decodeCompactedRow,
  decodeValue,
  type Row,
  Timestamp,
  type Value,
} from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import type { ChangelogFormat } from './changelog-builder.js'
import { fixedSchemaSource } from './table-schemas.js'

/**
 * Primary-key tables with ARRAY, MAP and ROW value columns: every write path of the KV store
 * (upserts, deletes, partial updates, merge engines), its reads (lookups, prefix lookups), its
 * changelog in both log formats and its recovery from that changelog carry nested values whole.
 */

const SAMPLE = DataTypes.ROW([
  { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 0 },
  { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 },
])
const POINT = DataTypes.ROW([
  { name: 'x', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'label', type: DataTypes.STRING(), fieldId: 0 },
])

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('seq', DataTypes.INT())
  .column('tags', DataTypes.ARRAY(DataTypes.STRING()))
  .column('samples', DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), SAMPLE)))
  .column('point', POINT)
  .column('by_key', DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(POINT)))
  .primaryKey('id', 'seq')
  .build()
const kv = new TestingKvBatches(schema)
const schemas = fixedSchemaSource(1, schema)
const byId = CompactedKeyEncoder.of(schema.rowType, ['id'])

const ts = (ms: number) => new Timestamp(ms)
const map = (...entries: [Value, Value][]) => new Map<Value, Value>(entries)

/** A row whose nested values are all set (and vary with `n`). */
function full(id: number, seq: number, n: number): Row {
  return [
    id,
    seq,
    [`t${n}`, null, ''],
    [map([`m${n}`, [[n + 0.5, null], ts(1_700_000_000_000 + n)]], ['empty', [[], null]]), null, map()],
    [n, `p${n}`],
    map(['a', [[n, null], null]], ['b', []]),
  ]
}

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

const rowsOf = (values: readonly (Buffer | null)[]) =>
  values.map(v => (v === null ? null : decodeCompactedRow(decodeValue(v).row, schema.rowType)))

describe.each(['ARROW', 'COMPACTED'] as ChangelogFormat[])('nested value columns, %s changelog', format => {
  const properties = { 'table.log.format': format }
  const changelog = () => readChangelog(bucket.log, schemas, 0, format)

  it('upserts, updates and deletes rows; the changelog carries the nested values whole', async () => {
    bucket = await TestingKvBucket.open(schema, properties)
    await bucket.kv.putAsLeader(kv.batch([full(1, 1, 1), full(1, 2, 2), full(2, 1, 3)]))
    await bucket.kv.putAsLeader(kv.batch([full(1, 1, 4), { delete: [2, 1, null, null, null, null] }]))
    const nulls: Row = [1, 2, null, null, null, null]
    await bucket.kv.putAsLeader(kv.batch([nulls]))
    expect(await changelog()).toEqual([
      [0, '+I', full(1, 1, 1)],
      [1, '+I', full(1, 2, 2)],
      [2, '+I', full(2, 1, 3)],
      [3, '-U', full(1, 1, 1)],
      [4, '+U', full(1, 1, 4)],
      [5, '-D', full(2, 1, 3)],
      [6, '-U', full(1, 2, 2)],
      [7, '+U', nulls],
    ])
    await bucket.acknowledge()
    const keys = [
      [1, 1],
      [2, 1],
      [1, 2],
    ].map(([id, seq]) => kv.key([id, seq, null, null, null, null]))
    expect(rowsOf(await bucket.kv.lookup(keys))).toEqual([full(1, 1, 4), null, nulls])
    expect(rowsOf(await bucket.kv.prefixLookup(byId.encodeKey([1])))).toEqual([full(1, 1, 4), nulls])
  })

  it('partial updates replace only the target nested columns', async () => {
    bucket = await TestingKvBucket.open(schema, properties)
    await bucket.kv.putAsLeader(kv.batch([full(1, 1, 1)]))
    const update = full(1, 1, 9)
    await bucket.kv.putAsLeader(kv.batch([update]), { targetColumns: [0, 1, 3, 5] })
    const merged = full(1, 1, 1).map((v, i) => ([3, 5].includes(i) ? update[i] : v))
    // A partial delete clears the target columns and keeps the row.
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, 1, null, null, null, null] }]), {
      targetColumns: [0, 1, 2, 4],
    })
    const cleared = merged.map((v, i) => ([2, 4].includes(i) ? null : v))
    expect(await changelog()).toEqual([
      [0, '+I', full(1, 1, 1)],
      [1, '-U', full(1, 1, 1)],
      [2, '+U', merged],
      [3, '-U', merged],
      [4, '+U', cleared],
    ])
  })

  it('rebuilds the store from its changelog with the nested values', async () => {
    bucket = await TestingKvBucket.open(schema, properties)
    await bucket.kv.putAsLeader(kv.batch([full(1, 1, 1), full(1, 2, 2), full(1, 1, 3)]))
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, 2, null, null, null, null] }]))
    bucket.log.updateHighWatermark(bucket.log.logEndOffset)
    await bucket.reopenKv()
    await bucket.acknowledge()
    expect(rowsOf(await bucket.kv.prefixLookup(byId.encodeKey([1])))).toEqual([full(1, 1, 3)])
  })
})

describe('merge engines with nested value columns', () => {
  function aggSchema(agg?: AggFunction) {
    return Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('tags', DataTypes.ARRAY(DataTypes.STRING()), agg)
      .column('attrs', DataTypes.MAP(DataTypes.STRING(), SAMPLE), agg)
      .column('point', POINT, agg)
      .primaryKey('id')
      .build()
  }
  const a: Row = [1, ['a'], map(['k', [[1], ts(1)]]), [1, 'one']]
  const nulls: Row = [1, null, null, null]
  const b: Row = [1, ['b', 'c'], map(), [2, null]]
  const inputs = [a, nulls, b]

  it.each([
    ['last_value', AggFunctions.LAST_VALUE(), b, [a, nulls, b]],
    ['last_value_ignore_nulls', AggFunctions.LAST_VALUE_IGNORE_NULLS(), b, [a, a, b]],
    ['the default (last_value_ignore_nulls)', undefined, b, [a, a, b]],
    ['first_value', AggFunctions.FIRST_VALUE(), a, [a, a, a]],
    ['first_value_ignore_nulls', AggFunctions.FIRST_VALUE_IGNORE_NULLS(), a, [a, a, a]],
  ] as const)('aggregation with %s keeps whole nested values', async (_name, agg, last, images) => {
    const s = aggSchema(agg)
    bucket = await TestingKvBucket.open(s, { 'table.merge-engine': 'AGGREGATION' })
    const batches = new TestingKvBatches(s)
    for (const row of inputs) await bucket.kv.putAsLeader(batches.batch([row]))
    const log = await readChangelog(bucket.log, fixedSchemaSource(1, s))
    expect(log.filter(([, type]) => type !== '-U').map(([, , row]) => row)).toEqual(images)
    await bucket.acknowledge()
    const [stored] = await bucket.kv.lookup([batches.key(a)])
    expect(decodeCompactedRow(decodeValue(stored as Buffer).row, s.rowType)).toEqual(last)
  })

  it('first_value over a stored NULL takes the next input, as for flat columns', async () => {
    const s = aggSchema(AggFunctions.FIRST_VALUE())
    bucket = await TestingKvBucket.open(s, { 'table.merge-engine': 'AGGREGATION' })
    const batches = new TestingKvBatches(s)
    await bucket.kv.putAsLeader(batches.batch([nulls, b, a]))
    const log = await readChangelog(bucket.log, fixedSchemaSource(1, s))
    expect(log.at(-1)?.[2]).toEqual(b)
  })

  it('first_row keeps the first nested row; versioned replaces it by version', async () => {
    const s = aggSchema()
    const batches = new TestingKvBatches(s)
    bucket = await TestingKvBucket.open(s, { 'table.merge-engine': 'FIRST_ROW' })
    await bucket.kv.putAsLeader(batches.batch([a, b]))
    expect(await readChangelog(bucket.log, fixedSchemaSource(1, s))).toEqual([[0, '+I', a]])
    await bucket.close()

    const versioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('v', DataTypes.BIGINT())
      .column('attrs', DataTypes.MAP(DataTypes.STRING(), SAMPLE))
      .primaryKey('id')
      .build()
    const vb = new TestingKvBatches(versioned)
    bucket = await TestingKvBucket.open(versioned, {
      'table.merge-engine': 'VERSIONED',
      'table.merge-engine.versioned.ver-column': 'v',
    })
    const v1: Row = [1, 1n, map(['x', [[1.5], ts(10)]])]
    const v0: Row = [1, 0n, map(['old', null])]
    const v2: Row = [1, 2n, map(['y', [null, null]], ['z', [[], ts(-5)]])]
    await bucket.kv.putAsLeader(vb.batch([v1, v0, v2]))
    expect(await readChangelog(bucket.log, fixedSchemaSource(1, versioned))).toEqual([
      [0, '+I', v1],
      [1, '-U', v1],
      [2, '+U', v2],
    ])
  })
})
