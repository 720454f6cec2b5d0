import { Timestamp, type Value } from '@sluice/core/row'
import { describe, expect } from 'vitest'
import { type Canonical, type ColumnSpec, parseType, toCanonical } from './canonical.js'
import type { Driver } from './drivers/driver.js'
import { type Change, expectChanges } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * The merge engines on tables with ARRAY, MAP and ROW value columns, written in turn by the official
 * Java client, our SDK and pyfluss, read back (changelog and lookups) by all three. Fluss 0.9.1
 * aggregates nested columns with last_value and first_value (and their ignore-nulls forms) only.
 * Then prefix lookups (by the bucket key) of rows with nested values, by Java and pyfluss.
 */

const { env, apis, db } = await compatSuite('nested_engines', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])
const prefixIt = itWhenServed(apis, ['PUT_KV', 'PREFIX_LOOKUP'])

const ID = [0]
const READERS = (): Driver[] => [env.java, env.python, env.sdk]

const canonicalRow = (columns: readonly ColumnSpec[], values: readonly Value[]): Canonical[] =>
  values.map((v, k) => toCanonical(v, parseType(columns[k].type, columns[k].nullable ?? true)))

async function expectEverywhere(
  table: string,
  changes: readonly Change[],
  state: Canonical[],
): Promise<void> {
  for (const reader of READERS()) {
    expectChanges(await reader.changelog(db, table, changes.length), changes, ID)
    expect(await reader.lookup(db, table, [['1'], ['2']]), `${reader.name} looks up ${table}`).toEqual([
      state,
      null,
    ])
  }
}

describe('merge engines with nested value columns', () => {
  const AGG: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'total', type: 'BIGINT', agg: 'sum' },
    { name: 'tags', type: 'ARRAY<STRING>', agg: 'last_value_ignore_nulls' },
    { name: 'point', type: 'ROW<x INT, label STRING>', agg: 'first_value_ignore_nulls' },
    { name: 'attrs', type: 'MAP<STRING, BIGINT>', agg: 'last_value' },
    { name: 'first', type: 'MAP<INT, ARRAY<STRING>>', agg: 'first_value' },
  ]
  const a = (...values: Value[]) => canonicalRow(AGG, values)

  kvIt(
    'aggregation: last_value, first_value and their ignore-nulls forms on nested columns, sum beside them, across Java, SDK and Python writes',
    async () => {
      const table = 'aggregation'
      const properties = { 'table.merge-engine': 'aggregation' }
      await env.java.createTable(db, table, { columns: AGG, primaryKey: ['id'], buckets: 2, properties })
      const first = new Map([[1, ['x']]])
      const s1 = a(1, 10n, ['a'], [1, 'p'], new Map([['k', 1n]]), first)
      const s2 = a(1, 15n, ['a'], [1, 'p'], null, first)
      const s3 = a(
        1,
        16n,
        ['b', null],
        [1, 'p'],
        new Map([
          ['j', 3n],
          ['k', 2n],
        ]),
        first,
      )
      await env.java.upsert(db, table, [{ op: 'upsert', row: s1 }])
      await env.sdk.upsert(db, table, [
        { op: 'upsert', row: a(1, 5n, null, [2, 'q'], null, new Map([[2, ['y']]])) },
      ])
      await env.python.upsert(db, table, [
        {
          op: 'upsert',
          row: a(
            1,
            1n,
            ['b', null],
            null,
            new Map([
              ['k', 2n],
              ['j', 3n],
            ]),
            null,
          ),
        },
      ])
      const changes = [
        { change: '+I', row: s1 },
        { change: '-U', row: s1 },
        { change: '+U', row: s2 },
        { change: '-U', row: s2 },
        { change: '+U', row: s3 },
      ]
      await expectEverywhere(table, changes, s3)
    },
  )

  const VERSIONED: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'ver', type: 'BIGINT' },
    { name: 'doc', type: 'ROW<tags ARRAY<STRING>, attrs MAP<STRING, DOUBLE>>' },
  ]
  const v = (...values: Value[]) => canonicalRow(VERSIONED, values)

  kvIt(
    'versioned: a nested row is replaced by a higher version only, across Java, SDK and Python writes',
    async () => {
      const table = 'versioned'
      const properties = {
        'table.merge-engine': 'versioned',
        'table.merge-engine.versioned.ver-column': 'ver',
      }
      await env.java.createTable(db, table, {
        columns: VERSIONED,
        primaryKey: ['id'],
        buckets: 2,
        properties,
      })
      const v2 = v(1, 2n, [['a'], new Map([['w', 0.5]])])
      const v3 = v(1, 3n, [
        null,
        new Map([
          ['w', 1.5],
          ['z', null],
        ]),
      ])
      await env.java.upsert(db, table, [{ op: 'upsert', row: v2 }])
      await env.sdk.upsert(db, table, [{ op: 'upsert', row: v(1, 1n, [['old'], null]) }])
      await env.python.upsert(db, table, [{ op: 'upsert', row: v3 }])
      const changes = [
        { change: '+I', row: v2 },
        { change: '-U', row: v2 },
        { change: '+U', row: v3 },
      ]
      await expectEverywhere(table, changes, v3)
    },
  )

  const FIRST_ROW: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'events', type: 'ARRAY<ROW<kind STRING, n INT>>' },
  ]
  const f = (...values: Value[]) => canonicalRow(FIRST_ROW, values)

  kvIt('first_row: the first nested row stays, later writes by any client change nothing', async () => {
    const table = 'first_row'
    const properties = { 'table.merge-engine': 'first_row' }
    await env.java.createTable(db, table, { columns: FIRST_ROW, primaryKey: ['id'], buckets: 2, properties })
    const kept = f(1, [['click', 1], null, ['view', 2]])
    await env.sdk.upsert(db, table, [{ op: 'upsert', row: kept }])
    await env.java.upsert(db, table, [{ op: 'upsert', row: f(1, []) }])
    await env.python.upsert(db, table, [{ op: 'upsert', row: f(1, null) }])
    await expectEverywhere(table, [{ change: '+I', row: kept }], kept)
  })
})

describe('prefix lookups of nested values', () => {
  const PREFIX: readonly ColumnSpec[] = [
    { name: 'a', type: 'INT', nullable: false },
    { name: 'b', type: 'STRING', nullable: false },
    { name: 'v', type: 'MAP<STRING, ARRAY<ROW<n INT, at TIMESTAMP_LTZ(3)>>>' },
  ]
  const r = (...values: Value[]) => canonicalRow(PREFIX, values)
  const at = (ms: number) => Timestamp.fromNanos(BigInt(ms) * 1_000_000n)

  prefixIt('Java and Python look up rows with nested values by the bucket key', async () => {
    const table = 'prefix'
    await env.java.createTable(db, table, {
      columns: PREFIX,
      primaryKey: ['a', 'b'],
      bucketKeys: ['a'],
      buckets: 3,
    })
    const x1 = r(1, 'x', new Map([['k', [[1, at(1000)], null]]]))
    const z1 = r(
      1,
      'z',
      new Map([
        ['k', []],
        ['j', null],
      ]),
    )
    const x2 = r(2, 'x', null)
    await env.java.upsert(db, table, [
      { op: 'upsert', row: x1 },
      { op: 'upsert', row: r(1, 'y', new Map()) },
      { op: 'upsert', row: x2 },
      { op: 'delete', row: r(1, 'y', null) },
    ])
    await env.sdk.upsert(db, table, [{ op: 'upsert', row: z1 }])
    for (const reader of [env.java, env.python]) {
      const found = await reader.lookup(db, table, [['1'], ['2'], ['3']], ['a'])
      expect(found, `${reader.name} looks up by a`).toEqual([[x1, z1], [x2], []])
    }
  })
})
