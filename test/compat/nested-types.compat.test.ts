import { describe, expect, it } from 'vitest'
import type { Canonical } from './canonical.js'
import type { Driver, KvOp } from './drivers/driver.js'
import { type Change, changesByKey, expectChanges, expectedByKey, microsecondRow } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'
import { NESTED_COLUMNS, NESTED_NAMES, nestedRow, nestedTable } from './nested-dataset.js'

/**
 * ARRAY, MAP and ROW columns (nested-dataset.ts) written and read by the official Java client,
 * pyfluss and our SDK, every way round: log tables in every log format Fluss has (ARROW, COMPACTED,
 * INDEXED) and primary-key tables (COMPACTED values) with ARROW and COMPACTED changelogs, through
 * appends, upserts, partial updates, deletes, changelog scans (whole and projected on nested
 * columns) and lookups.
 *
 * Our SDK reads and writes ARROW logs only, and pyfluss reads ARROW logs only ("Unknown log format:
 * COMPACTED", against Fluss too), so COMPACTED and INDEXED logs are read by the Java client; the SDK
 * and pyfluss meet those tables through lookups and upserts. pyfluss's record API keeps timestamps at
 * microseconds (Python datetimes), at every depth of a nested value: what it reads is compared with
 * microsecond rows, and what it writes are microsecond rows, which the others read exactly.
 */

const { env, apis, db } = await compatSuite('nested', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])

type Client = 'java' | 'python' | 'sdk'
const TITLE: Record<Client, string> = { java: 'Java', python: 'Python', sdk: 'the SDK' }
const driver = (c: Client): Driver => env[c]
const titles = (cs: readonly Client[]) => cs.map(c => TITLE[c]).join(', ')

const ID = [0]
const LOG_ROWS = 400
const BUCKETS = 3
const PROJECTION = ['id', 'readings', 'misc']

/** Rows as `client` writes and reads them: microseconds for pyfluss, else exact. */
const shaped = (client: Client, row: Canonical[]) =>
  client === 'python' ? microsecondRow(NESTED_COLUMNS, row) : row
const rows = (n: number, salt: number, client: Client = 'java') =>
  Array.from({ length: n }, (_, i) => shaped(client, nestedRow(i, salt)))
const appended = (rs: readonly Canonical[][]): Change[] => rs.map(row => ({ change: '+A', row }))
const asReadBy = (client: Client, changes: readonly Change[]): Change[] =>
  changes.map(c => ({ ...c, row: shaped(client, [...c.row]) }))
const project = (changes: readonly Change[], names: readonly string[]): Change[] =>
  changes.map(c => ({ ...c, row: names.map(n => c.row[NESTED_NAMES.indexOf(n)]) }))
const logFormat = (format: string) => ({ 'table.log.format': format })

/** Clients that scan a log of this format (see the file comment). */
const scanners = (format: string): Client[] => (format === 'ARROW' ? ['java', 'python', 'sdk'] : ['java'])

async function expectLog(
  client: Client,
  table: string,
  changes: readonly Change[],
  projection?: readonly string[],
): Promise<void> {
  const expected = asReadBy(client, changes)
  const read = await driver(client).changelog(db, table, expected.length, projection)
  const want = projection ? project(expected, projection) : expected
  // The first key whose changes differ, alone, so that a failure shows a readable difference.
  const [got, wanted] = [changesByKey(read, ID), expectedByKey(want, ID)]
  const differing = Object.keys(wanted).find(k => JSON.stringify(got[k]) !== JSON.stringify(wanted[k]))
  if (differing !== undefined)
    expect(got[differing], `${client} reads key ${differing} of ${table}`).toEqual(wanted[differing])
  expectChanges(read, want, ID)
}

describe('the nested dataset', () => {
  it('has nulls and values in every nullable column, and nulls and empties inside nested values', () => {
    const all = rows(LOG_ROWS, 0)
    NESTED_COLUMNS.forEach((c, k) => {
      const nulls = all.filter(r => r[k] === null).length
      if (c.nullable === false) expect(nulls, c.name).toBe(0)
      else expect(nulls, c.name).toBeGreaterThan(0)
      expect(nulls, c.name).toBeLessThan(LOG_ROWS / 2)
    })
    const texts = all.flatMap(r => r.slice(1)).filter((v): v is string => v !== null)
    expect(texts.some(t => t === '[]')).toBe(true)
    expect(texts.some(t => t.includes('null'))).toBe(true)
    expect(new Set(all.map(r => r[4])).size).toBeGreaterThan(LOG_ROWS / 2)
    // Nanoseconds Python cannot keep, so microsecond rows differ from exact ones.
    expect(rows(LOG_ROWS, 0, 'python')).not.toEqual(all)
  })
})

describe('log tables', () => {
  const written = appended(rows(LOG_ROWS, 0))

  for (const format of ['ARROW', 'COMPACTED', 'INDEXED']) {
    it(`Java appends ${LOG_ROWS} rows to a log table in the ${format} format; ${titles(scanners(format))} read them back`, async () => {
      const table = `log_${format.toLowerCase()}_java`
      await env.java.createTable(db, table, nestedTable({ buckets: BUCKETS, properties: logFormat(format) }))
      await env.java.append(db, table, rows(LOG_ROWS, 0))
      for (const reader of scanners(format)) await expectLog(reader, table, written)
    })
  }

  it('Java, Python and the SDK read the ARROW log projected on two nested columns', async () => {
    for (const reader of scanners('ARROW')) await expectLog(reader, 'log_arrow_java', written, PROJECTION)
  })

  for (const [writer, salt] of [
    ['sdk', 1],
    ['python', 2],
  ] as const) {
    const readers = scanners('ARROW').filter(c => c !== writer)
    it(`${TITLE[writer]} creates an ARROW log table and appends; ${titles(readers)} read every row back, whole and projected`, async () => {
      const table = `log_arrow_${writer}`
      const mine = rows(LOG_ROWS, salt, writer)
      await driver(writer).createTable(db, table, nestedTable({ buckets: BUCKETS }))
      await driver(writer).append(db, table, mine)
      for (const reader of readers) {
        await expectLog(reader, table, appended(mine))
        await expectLog(reader, table, appended(mine), PROJECTION)
      }
    })
  }
})

const INSERTED = 120
const UPDATED = 30
const PARTIAL = ['id', 'tags', 'point', 'by_key']
const PARTIAL_FROM = 40
const PARTIALLY_UPDATED = 30
const DELETED_FROM = 90
const DELETED = 20

/**
 * What `writer` does to a primary-key table: inserts rows 0..119 (version `salt`), updates 0..29
 * (version `salt + 1`), partially updates the PARTIAL columns of 40..69 (version `salt + 2`, the
 * other columns null in the request) and deletes 90..109; the changelog this produces, and the
 * row of every key (and of one never written) afterwards.
 */
function kvScenario(writer: Client, salt: number) {
  const row = (i: number, s: number) => shaped(writer, nestedRow(i, s))
  const ops: KvOp[] = []
  const changes: Change[] = []
  const state = new Map<number, Canonical[] | null>()
  const change = (i: number, next: Canonical[] | null) => {
    const old = state.get(i) ?? null
    if (old === null) changes.push({ change: '+I', row: next! })
    else if (next === null) changes.push({ change: '-D', row: old })
    else changes.push({ change: '-U', row: old }, { change: '+U', row: next })
    state.set(i, next)
  }
  for (let i = 0; i < INSERTED; i++) {
    ops.push({ op: 'upsert', row: row(i, salt) })
    change(i, row(i, salt))
  }
  ops.push({ op: 'flush' })
  for (let i = 0; i < UPDATED; i++) {
    ops.push({ op: 'upsert', row: row(i, salt + 1) })
    change(i, row(i, salt + 1))
  }
  for (let i = PARTIAL_FROM; i < PARTIAL_FROM + PARTIALLY_UPDATED; i++) {
    const update = row(i, salt + 2)
    const partial = (k: number) => PARTIAL.includes(NESTED_NAMES[k])
    ops.push({ op: 'upsert', row: update.map((v, k) => (partial(k) ? v : null)), columns: PARTIAL })
    change(
      i,
      state.get(i)!.map((v, k) => (partial(k) ? update[k] : v)),
    )
  }
  ops.push({ op: 'flush' })
  for (let i = DELETED_FROM; i < DELETED_FROM + DELETED; i++) {
    ops.push({ op: 'delete', row: state.get(i)! })
    change(i, null)
  }
  state.set(123_456, null)
  return { ops, changes, keys: [...state.keys()].map(i => [String(i)]), rows: [...state.values()] }
}

describe('primary-key tables', () => {
  const clients: Client[] = ['java', 'python', 'sdk']
  for (const format of ['ARROW', 'COMPACTED']) {
    clients.forEach((writer, w) => {
      const title = `${TITLE[writer]} inserts, updates, partially updates and deletes nested rows (${format} changelog); ${titles(scanners(format))} read the changelog; every client looks up every key`
      kvIt(title, async () => {
        const table = `pk_${format.toLowerCase()}_${writer}`
        const scenario = kvScenario(writer, 10 * (w + 1))
        const properties = { ...logFormat(format), 'table.kv.format': 'COMPACTED' }
        await driver(writer).createTable(
          db,
          table,
          nestedTable({ buckets: BUCKETS, primaryKey: true, properties }),
        )
        await driver(writer).upsert(db, table, scenario.ops)
        for (const reader of scanners(format)) {
          await expectLog(reader, table, scenario.changes)
          if (format === 'ARROW') await expectLog(reader, table, scenario.changes, PROJECTION)
        }
        for (const reader of clients) {
          const expected = scenario.rows.map(r => (r === null ? null : shaped(reader, r)))
          expect(
            await driver(reader).lookup(db, table, scenario.keys),
            `${reader} looks up ${table}`,
          ).toEqual(expected)
        }
      })
    })
  }
})
