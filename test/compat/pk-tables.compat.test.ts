import { describe, expect } from 'vitest'
import type { Canonical, ColumnSpec, TableSpec } from './canonical.js'
import { ALL_TYPES_COLUMNS, ALL_TYPES_NAMES, allTypesPkTable, datasetRow } from './dataset.js'
import type { Driver, KvOp } from './drivers/driver.js'
import { type Change, expectChanges, microsecondRow, rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Issue 4: primary-key tables (default merge engine) through the official Java and Python clients:
 * upserts, partial updates and deletes of every type, lookups, and the changelog read back
 * (merge engines and prefix lookups: merge-engines.compat.test.ts).
 */

const { env, apis, db } = await compatSuite('pk', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])

const ID = [0]
const INSERTED = 200
const UPDATED = 50
const DELETED_FROM = 150
const DELETED = 25

/** Upsert rows 0..199 (version `salt`), update 0..49 (version `salt + 1`), delete 150..174. */
function allTypesOps(salt: number, shape: (row: Canonical[]) => Canonical[]): KvOp[] {
  const row = (i: number, s: number) => shape(datasetRow(i, s))
  return [
    ...Array.from({ length: INSERTED }, (_, i) => ({ op: 'upsert' as const, row: row(i, salt) })),
    ...Array.from({ length: UPDATED }, (_, i) => ({ op: 'upsert' as const, row: row(i, salt + 1) })),
    ...Array.from({ length: DELETED }, (_, i) => ({
      op: 'delete' as const,
      row: row(DELETED_FROM + i, salt),
    })),
  ]
}

/** The changelog the default merge engine (FULL image) produces for allTypesOps. */
function allTypesChanges(salt: number, shape: (row: Canonical[]) => Canonical[]): Change[] {
  const row = (i: number, s: number) => shape(datasetRow(i, s))
  return [
    ...Array.from({ length: INSERTED }, (_, i) => ({ change: '+I', row: row(i, salt) })),
    ...Array.from({ length: UPDATED }, (_, i) => [
      { change: '-U', row: row(i, salt) },
      { change: '+U', row: row(i, salt + 1) },
    ]).flat(),
    ...Array.from({ length: DELETED }, (_, i) => ({ change: '-D', row: row(DELETED_FROM + i, salt) })),
  ]
}

/** The row each key holds after allTypesOps (null when deleted), plus a key never written. */
function allTypesState(
  salt: number,
  shape: (row: Canonical[]) => Canonical[],
): [Canonical[], Canonical[] | null][] {
  const keys = Array.from({ length: INSERTED }, (_, i) => i)
  const state = keys.map((i): [Canonical[], Canonical[] | null] => {
    if (i < UPDATED) return [[String(i)], shape(datasetRow(i, salt + 1))]
    if (i >= DELETED_FROM && i < DELETED_FROM + DELETED) return [[String(i)], null]
    return [[String(i)], shape(datasetRow(i, salt))]
  })
  return [...state, [['123456'], null]]
}

const sameRow = (row: Canonical[]) => row

const pythonRow = (row: Canonical[]) => microsecondRow(ALL_TYPES_COLUMNS, row)

async function expectLookups(
  driver: Driver,
  table: string,
  state: [Canonical[], Canonical[] | null][],
): Promise<void> {
  const found = await driver.lookup(
    db,
    table,
    state.map(([key]) => key),
  )
  expect(found).toEqual(state.map(([, row]) => row))
}

describe('default merge engine, all types, written by Java', () => {
  const table = 'all_types_java'
  const expected = allTypesChanges(0, sameRow)

  kvIt('Java creates the all-types PK table, upserts 200 rows, updates 50 and deletes 25', async () => {
    await env.java.createTable(db, table, allTypesPkTable(3))
    await env.java.upsert(db, table, allTypesOps(0, sameRow))
  })

  kvIt('Java reads the changelog: +I per row, -U/+U per update, -D per delete, exact values', async () => {
    expectChanges(await env.java.changelog(db, table, expected.length), expected, ID)
  })

  kvIt('Python reads the same changelog (timestamps at µs: pyfluss returns datetimes)', async () => {
    const micro = expected.map(c => ({ ...c, row: pythonRow([...c.row]) }))
    expectChanges(await env.python.changelog(db, table, expected.length), micro, ID)
  })

  kvIt('Java reads the changelog projected on 2 columns', async () => {
    const project = ['id', 'c_decimal_38_10']
    const columns = project.map(name => ALL_TYPES_NAMES.indexOf(name))
    const projected = expected.map(c => ({ ...c, row: columns.map(k => c.row[k]) }))
    expectChanges(await env.java.changelog(db, table, expected.length, project), projected, ID)
  })

  kvIt('Java and Python look up every key', async () => {
    await expectLookups(env.java, table, allTypesState(0, sameRow))
    // pyfluss sends ids >= 128 to other buckets than Fluss computes; the leaders serve them in their
    // own bucket (misrouted-keys.compat.test.ts), so every key is found.
    await expectLookups(env.python, table, allTypesState(0, pythonRow))
  })
})

describe('default merge engine, all types, written by Python', () => {
  /** pyfluss creates tables from pyarrow schemas, which have no CHAR. */
  const spec: TableSpec = {
    ...allTypesPkTable(3),
    columns: ALL_TYPES_COLUMNS.map(c => (c.type.startsWith('CHAR') ? { ...c, type: 'STRING' } : c)),
  }

  kvIt(
    'Python creates its PK table and upserts, updates, deletes; Java reads changelog and keys',
    async () => {
      const table = 'all_types_python'
      await env.python.createTable(db, table, spec)
      // Every id, those pyfluss buckets otherwise than Fluss (>= 128) included.
      await env.python.upsert(db, table, allTypesOps(4, pythonRow))
      const expected = allTypesChanges(4, pythonRow)
      expectChanges(await env.java.changelog(db, table, expected.length), expected, ID)
      await expectLookups(env.java, table, allTypesState(4, pythonRow))
    },
  )
})

const PARTIAL: readonly ColumnSpec[] = [
  { name: 'id', type: 'INT', nullable: false },
  { name: 'a', type: 'STRING' },
  { name: 'b', type: 'BIGINT' },
  { name: 'c', type: 'DOUBLE' },
]
const p = (...values: (string | number | null)[]) => rowOf(PARTIAL, values)

describe('partial update and partial delete (default merge engine)', () => {
  const ops: KvOp[] = [
    { op: 'upsert', row: p(1, 'a1', 10, 1.5) },
    { op: 'upsert', columns: ['id', 'b'], row: p(1, null, 20, null) },
    { op: 'upsert', columns: ['id', 'a'], row: p(2, 'a2', null, null) },
    { op: 'upsert', columns: ['id'], row: p(1, null, null, null) },
    { op: 'delete', columns: ['id', 'b'], row: p(1, null, null, null) },
    { op: 'delete', columns: ['id', 'a'], row: p(2, null, null, null) },
    { op: 'delete', row: p(1, null, null, null) },
    { op: 'upsert', row: p(3, 'a3', 30, 3.5) },
  ]
  const expected: Change[] = [
    { change: '+I', row: p(1, 'a1', 10, 1.5) },
    { change: '-U', row: p(1, 'a1', 10, 1.5) },
    { change: '+U', row: p(1, 'a1', 20, 1.5) },
    { change: '+I', row: p(2, 'a2', null, null) },
    { change: '-U', row: p(1, 'a1', 20, 1.5) },
    { change: '+U', row: p(1, 'a1', null, 1.5) },
    { change: '-D', row: p(2, 'a2', null, null) },
    { change: '-D', row: p(1, 'a1', null, 1.5) },
    { change: '+I', row: p(3, 'a3', 30, 3.5) },
  ]

  for (const writer of ['java', 'python'] as const) {
    kvIt(`${writer} writes; Java and Python read the changelog and look up the keys`, async () => {
      const table = `partial_${writer}`
      await env[writer].createTable(db, table, { columns: PARTIAL, primaryKey: ['id'], buckets: 2 })
      await env[writer].upsert(db, table, ops)
      for (const reader of [env.java, env.python]) {
        expectChanges(await reader.changelog(db, table, expected.length), expected, ID)
        expect(await reader.lookup(db, table, [['1'], ['2'], ['3']])).toEqual([
          null,
          null,
          p(3, 'a3', 30, 3.5),
        ])
      }
    })
  }
})
