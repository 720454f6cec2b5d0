import { describe, expect } from 'vitest'
import { waitUntil } from '../harness/wait.js'
import type { Canonical, ColumnSpec } from './canonical.js'
import type { KvOp, LogRecordOut } from './drivers/driver.js'
import { rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Issue 16, item 3: auto-increment columns through the official Java client and pyfluss. Fluss
 * 0.9.1 gives every bucket ranges of `table.auto-increment.cache-size` ids from one counter per
 * table, ids unique across buckets, restarts and failovers (a restarted bucket skips the rest of
 * its range), assigned on insert only and returned by insert-if-not-exists lookups.
 */

const { env, apis, db } = await compatSuite('autoinc', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'k', type: 'STRING', nullable: false },
  { name: 'uid', type: 'BIGINT' },
  { name: 'v', type: 'STRING' },
]
const CACHE_SIZE = 3
const BUCKETS = 3
const r = (...values: (string | number | null)[]) => rowOf(COLUMNS, values)
/** Writes leave the auto-increment column out (Fluss's clients refuse it as a target). */
const write = (k: string, v: string): KvOp => ({ op: 'upsert', columns: ['k', 'v'], row: r(k, null, v) })
const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

/** The +I records of the changelog: the id each key got, its bucket, in log order per bucket. */
function inserts(
  records: readonly LogRecordOut[],
): { k: string; uid: number; bucket: number; offset: number }[] {
  return records
    .filter(x => x.change === '+I')
    .map(x => ({ k: String(x.row[0]), uid: Number(x.row[1]), bucket: x.bucket, offset: x.offset }))
    .sort((a, b) => a.bucket - b.bucket || a.offset - b.offset)
}

/** Every id is unique; per bucket ids grow in log order; every range of CACHE_SIZE belongs to one bucket. */
function expectBucketRanges(rows: ReturnType<typeof inserts>): void {
  expect(new Set(rows.map(x => x.uid)).size).toBe(rows.length)
  const owner = new Map<number, number>()
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    expect(row.uid).toBeGreaterThanOrEqual(1)
    const previous = rows[i - 1]
    if (previous?.bucket === row.bucket) expect(row.uid).toBeGreaterThan(previous.uid)
    const range = Math.floor((row.uid - 1) / CACHE_SIZE)
    expect(owner.get(range) ?? row.bucket, `range of id ${row.uid}`).toBe(row.bucket)
    owner.set(range, row.bucket)
  }
}

describe('auto-increment columns', () => {
  kvIt(
    'Java and Python insert; ids come in per-bucket ranges, kept on update, new after restarts and a failover',
    async () => {
      const table = 'autoinc'
      const spec = {
        columns: COLUMNS,
        primaryKey: ['k'],
        autoIncrement: 'uid',
        buckets: BUCKETS,
        properties: {
          'table.auto-increment.cache-size': String(CACHE_SIZE),
          'table.replication.factor': '3',
        },
      }
      await env.java.createTable(db, table, spec)
      await env.java.upsert(db, table, [...keys('j', 12).map(k => write(k, 'first')), write('j0', 'second')])
      await env.python.upsert(
        db,
        table,
        keys('p', 6).map(k => write(k, 'py')),
      )
      const before = inserts(await env.java.changelog(db, table, 12 + 2 + 6))
      expect(before.map(x => x.k).sort()).toEqual([...keys('j', 12), ...keys('p', 6)].sort())
      expectBucketRanges(before)
      const j0 = before.find(x => x.k === 'j0')?.uid as number
      expect(await env.java.lookup(db, table, [['j0']])).toEqual([r('j0', j0, 'second')])
      expect(await env.python.lookup(db, table, [['j0']])).toEqual([r('j0', j0, 'second')])

      // Restarts move every leadership: each bucket's next ids come from new ranges.
      for (let id = 1; id <= 3; id++) await env.cluster.restartTabletServer(id)
      const more = keys('n', 6).map(k => write(k, 'after'))
      await waitUntil(() => env.java.upsert(db, table, more).then(() => true), {
        timeoutMs: 60_000,
        what: 'writes accepted after the restarts',
      })
      const all = inserts(await env.java.changelog(db, table, 12 + 2 + 6 + 6))
      const after = all.filter(x => x.k.startsWith('n'))
      expect(after).toHaveLength(6)
      expectBucketRanges(all)
      const maxBefore = Math.max(...before.map(x => x.uid))
      for (const x of after) expect(x.uid).toBeGreaterThan(maxBefore)

      // kill -9 of a server: the buckets it led continue on new leaders, from new ranges.
      await env.cluster.killTabletServer(2)
      try {
        const failover = keys('f', 6).map(k => write(k, 'failover'))
        await waitUntil(() => env.java.upsert(db, table, failover).then(() => true), {
          timeoutMs: 60_000,
          what: 'writes accepted after the kill',
        })
      } finally {
        await env.cluster.startTabletServer(2)
      }
      const final = await waitUntil(
        () => env.java.changelog(db, table, 12 + 2 + 6 + 12).catch(() => undefined),
        { timeoutMs: 60_000, what: 'the changelog read after the failover' },
      )
      // Buckets that kept their leader go on with their range; the others took new ones.
      const last = inserts(final)
      expect(last.filter(x => x.k.startsWith('f'))).toHaveLength(6)
      expectBucketRanges(last)
    },
  )

  kvIt(
    'insert-if-not-exists lookups return the ids of the rows they insert, and existing rows as they are',
    async () => {
      const table = 'autoinc_lookup'
      const spec = { columns: COLUMNS, primaryKey: ['k'], autoIncrement: 'uid', buckets: BUCKETS }
      await env.java.createTable(db, table, spec)
      await env.java.upsert(db, table, [write('a', 'x')])
      const found = (await env.java.lookupInserting(db, table, [['a'], ['b'], ['c']])) as Canonical[][]
      const ids = found.map(row => Number(row[1]))
      expect(found).toEqual([r('a', ids[0], 'x'), r('b', ids[1], null), r('c', ids[2], null)])
      expect(new Set(ids).size).toBe(3)
      // The default cache size (100000): each bucket's first range starts at 1 + 100000 * n.
      for (const id of ids) expect((id - 1) % 100_000).toBeLessThan(3)
      expect(await env.java.lookup(db, table, [['b'], ['c']])).toEqual([found[1], found[2]])
      expect(await env.java.lookupInserting(db, table, [['b']])).toEqual([found[1]])
    },
  )
})
