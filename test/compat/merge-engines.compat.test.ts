import { readFileSync } from 'node:fs'
import { describe, expect } from 'vitest'
import type { ColumnSpec } from './canonical.js'
import { expectChanges, rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Issue 4: the first_row, versioned and aggregation merge engines and prefix lookups through the
 * official Java and Python clients; every case reads the changelog back and looks keys up.
 */

const { env, apis, db } = await compatSuite('engines', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])
const prefixIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP', 'PREFIX_LOOKUP'])
const ID = [0]

describe('merge engines', () => {
  const FIRST_ROW: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'v', type: 'STRING' },
    { name: 'n', type: 'BIGINT' },
  ]
  const f = (...values: (string | number | null)[]) => rowOf(FIRST_ROW, values)

  kvIt('first_row: later upserts and deletes of a key change nothing (Python writes)', async () => {
    const table = 'first_row'
    const properties = { 'table.merge-engine': 'first_row' }
    await env.java.createTable(db, table, { columns: FIRST_ROW, primaryKey: ['id'], buckets: 2, properties })
    await env.python.upsert(db, table, [
      { op: 'upsert', row: f(1, 'first', 1) },
      { op: 'upsert', row: f(1, 'second', 2) },
      { op: 'upsert', row: f(2, 'x', 5) },
      { op: 'delete', row: f(1, null, null) },
    ])
    const expected = [
      { change: '+I', row: f(1, 'first', 1) },
      { change: '+I', row: f(2, 'x', 5) },
    ]
    for (const reader of [env.java, env.python]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, ID)
      expect(await reader.lookup(db, table, [['1'], ['2']])).toEqual([f(1, 'first', 1), f(2, 'x', 5)])
    }
  })

  const VERSIONED: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'ver', type: 'BIGINT' },
    { name: 'v', type: 'STRING' },
  ]
  const v = (...values: (string | number | null)[]) => rowOf(VERSIONED, values)

  kvIt('versioned: the largest version wins, ties replace, a NULL version only replaces NULL', async () => {
    const table = 'versioned'
    const properties = { 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'ver' }
    await env.java.createTable(db, table, { columns: VERSIONED, primaryKey: ['id'], buckets: 2, properties })
    const writes = [
      v(1, 5, 'a'),
      v(1, 3, 'b'),
      v(1, 5, 'c'),
      v(1, null, 'd'),
      v(1, 9, 'e'),
      v(2, null, 'n'),
      v(2, null, 'm'),
      v(2, 1, 'o'),
    ]
    await env.java.upsert(
      db,
      table,
      writes.map(row => ({ op: 'upsert', row })),
    )
    const expected = [
      { change: '+I', row: v(1, 5, 'a') },
      { change: '-U', row: v(1, 5, 'a') },
      { change: '+U', row: v(1, 5, 'c') },
      { change: '-U', row: v(1, 5, 'c') },
      { change: '+U', row: v(1, 9, 'e') },
      { change: '+I', row: v(2, null, 'n') },
      { change: '-U', row: v(2, null, 'n') },
      { change: '+U', row: v(2, null, 'm') },
      { change: '-U', row: v(2, null, 'm') },
      { change: '+U', row: v(2, 1, 'o') },
    ]
    for (const reader of [env.java, env.python]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, ID)
      expect(await reader.lookup(db, table, [['1'], ['2']])).toEqual([v(1, 9, 'e'), v(2, 1, 'o')])
    }
  })

  const AGG: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'total', type: 'BIGINT', agg: 'sum' },
    { name: 'hi', type: 'INT', agg: 'max' },
    { name: 'lo', type: 'INT', agg: 'min' },
    { name: 'last', type: 'STRING', agg: 'last_value' },
    { name: 'tags', type: 'STRING', agg: 'listagg' },
    { name: 'seen', type: 'BOOLEAN', agg: 'bool_or' },
  ]
  const a = (...values: (string | number | boolean | null)[]) => rowOf(AGG, values)

  kvIt('aggregation: sum, max, min, last_value, listagg, bool_or across Java and Python writes', async () => {
    const table = 'aggregation'
    const properties = { 'table.merge-engine': 'aggregation' }
    await env.java.createTable(db, table, { columns: AGG, primaryKey: ['id'], buckets: 2, properties })
    await env.java.upsert(db, table, [{ op: 'upsert', row: a(1, 10, 5, 5, 'a', 'x', false) }])
    await env.python.upsert(db, table, [{ op: 'upsert', row: a(1, 5, 7, 3, null, 'y', true) }])
    await env.java.upsert(db, table, [
      { op: 'upsert', row: a(1, null, null, null, 'c', null, null) },
      { op: 'delete', row: a(1, null, null, null, null, null, null) },
      { op: 'upsert', row: a(2, 1, 1, 1, 'z', 'q', null) },
    ])
    const expected = [
      { change: '+I', row: a(1, 10, 5, 5, 'a', 'x', false) },
      { change: '-U', row: a(1, 10, 5, 5, 'a', 'x', false) },
      { change: '+U', row: a(1, 15, 7, 3, null, 'x,y', true) },
      { change: '-U', row: a(1, 15, 7, 3, null, 'x,y', true) },
      { change: '+U', row: a(1, 15, 7, 3, 'c', 'x,y', true) },
      { change: '+I', row: a(2, 1, 1, 1, 'z', 'q', null) },
    ]
    for (const reader of [env.java, env.python]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, ID)
      const found = await reader.lookup(db, table, [['1'], ['2']])
      expect(found).toEqual([a(1, 15, 7, 3, 'c', 'x,y', true), a(2, 1, 1, 1, 'z', 'q', null)])
    }
  })
})

/**
 * Serialized Roaring64Bitmaps and the bytes Fluss's rbm64 aggregation returns for them, produced
 * with RoaringBitmap 1.3.0 (test/compat/java/rbm64-golden).
 */
const RBM64 = JSON.parse(
  readFileSync(
    new URL(
      '../../services/tablet/src/kv/rowmerger/aggregate/test-fixtures/rbm64-golden.json',
      import.meta.url,
    ),
    'utf8',
  ),
) as { cases: { kind: string; name?: string; acc?: string; input?: string; hex?: string }[] }
const rbm64 = (name: string) => RBM64.cases.find(c => c.name === name)?.hex as string
const rbm64Or = (acc: string, input: string) =>
  RBM64.cases.find(c => c.kind === 'agg' && c.acc === acc && c.input === input)?.hex as string

describe('rbm64 aggregation', () => {
  const BITMAPS: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'users', type: 'BYTES', agg: 'rbm64' },
  ]
  const b = (...values: (number | string | null)[]) => rowOf(BITMAPS, values)

  kvIt('rbm64: Java and Python write Roaring64Bitmaps, the server ORs them as Fluss does', async () => {
    const table = 'rbm64'
    const properties = { 'table.merge-engine': 'aggregation' }
    await env.java.createTable(db, table, { columns: BITMAPS, primaryKey: ['id'], buckets: 2, properties })
    await env.java.upsert(db, table, [
      { op: 'upsert', row: b(1, rbm64('of_10_20')) },
      { op: 'upsert', row: b(2, rbm64('high')) },
    ])
    await env.python.upsert(db, table, [
      { op: 'upsert', row: b(1, rbm64('of_20_30')) },
      { op: 'upsert', row: b(2, null) },
    ])
    await env.java.upsert(db, table, [{ op: 'upsert', row: b(2, rbm64('signed')) }])
    const union1 = rbm64Or('of_10_20', 'of_20_30')
    const union2 = rbm64Or('high', 'signed')
    const expected = [
      { change: '+I', row: b(1, rbm64('of_10_20')) },
      { change: '-U', row: b(1, rbm64('of_10_20')) },
      { change: '+U', row: b(1, union1) },
      { change: '+I', row: b(2, rbm64('high')) },
      { change: '-U', row: b(2, rbm64('high')) },
      { change: '+U', row: b(2, rbm64('high')) },
      { change: '-U', row: b(2, rbm64('high')) },
      { change: '+U', row: b(2, union2) },
    ]
    for (const reader of [env.java, env.python]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, ID)
      expect(await reader.lookup(db, table, [['1'], ['2']])).toEqual([b(1, union1), b(2, union2)])
    }
  })
})

describe('prefix lookup', () => {
  const PREFIX: readonly ColumnSpec[] = [
    { name: 'a', type: 'INT', nullable: false },
    { name: 'b', type: 'STRING', nullable: false },
    { name: 'v', type: 'STRING' },
  ]
  const r = (...values: (string | number | null)[]) => rowOf(PREFIX, values)

  prefixIt('Java and Python look up by the bucket key (a strict prefix of the primary key)', async () => {
    const table = 'prefix'
    const spec = { columns: PREFIX, primaryKey: ['a', 'b'], bucketKeys: ['a'], buckets: 3 }
    await env.java.createTable(db, table, spec)
    await env.java.upsert(db, table, [
      { op: 'upsert', row: r(1, 'x', '1x') },
      { op: 'upsert', row: r(1, 'y', '1y') },
      { op: 'upsert', row: r(2, 'x', '2x') },
      { op: 'upsert', row: r(1, 'z', '1z') },
      { op: 'delete', row: r(1, 'y', null) },
    ])
    for (const reader of [env.java, env.python]) {
      const found = await reader.lookup(db, table, [['1'], ['2'], ['3']], ['a'])
      expect(found).toEqual([[r(1, 'x', '1x'), r(1, 'z', '1z')], [r(2, 'x', '2x')], []])
      expect(
        await reader.lookup(db, table, [
          ['1', 'z'],
          ['1', 'y'],
        ]),
      ).toEqual([r(1, 'z', '1z'), null])
    }
  })
})
