import { describe, expect } from 'vitest'
import type { ColumnSpec } from './canonical.js'
import { rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Issue 16, items 4 and 5: what the official clients see when Fluss refuses something, with
 * Fluss's exception classes and texts: table stats of a WAL-image table, offsets for a timestamp
 * in the future, a fetch beyond the log, DDL refusals.
 */

const { env, apis, db } = await compatSuite('errors', ['PUT_KV', 'LOOKUP', 'LIST_OFFSETS'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP', 'LIST_OFFSETS', 'GET_TABLE_STATS'])

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'INT', nullable: false },
  { name: 'v', type: 'STRING' },
]
const r = (...values: (string | number | null)[]) => rowOf(COLUMNS, values)
const WRITES = [
  { op: 'upsert' as const, row: r(1, 'a') },
  { op: 'upsert' as const, row: r(2, 'b') },
  { op: 'upsert' as const, row: r(3, 'c') },
  { op: 'flush' as const },
  { op: 'delete' as const, row: r(2, null) },
]

/** Java's text of an error: `<exception class>: <message>`, with its cause chain. */
const thrown = (exception: string, message: string) => `org.apache.fluss.exception.${exception}: ${message}`

describe('errors as Fluss reports them', () => {
  kvIt(
    'getTableStats of a WAL-image table: InvalidTableException "Row count is disabled"; FULL counts rows',
    async () => {
      const wal = { 'table.changelog.image': 'WAL' }
      await env.java.createTable(db, 'wal', {
        columns: COLUMNS,
        primaryKey: ['id'],
        buckets: 2,
        properties: wal,
      })
      await env.java.createTable(db, 'full', { columns: COLUMNS, primaryKey: ['id'], buckets: 2 })
      for (const table of ['wal', 'full']) await env.java.upsert(db, table, WRITES)
      expect(await env.java.stats(db, 'full')).toBe(2)
      const message =
        `Row count is disabled for this table '${db}.wal'. This usually happens when the table is` +
        'created before v0.9 or the changelog image is set to WAL, as maintaining row count in WAL mode is ' +
        'costly and not necessary for most use cases. If you want to enable row count, please set changelog image to FULL.'
      expect(await env.java.error(['stats', db, 'wal'])).toContain(thrown('InvalidTableException', message))
    },
  )

  kvIt(
    'offsets for a timestamp in the future: InvalidTimestampException "is larger than the current timestamp"',
    async () => {
      await env.java.createTable(db, 'ts', { columns: COLUMNS, primaryKey: ['id'], buckets: 1 })
      const future = Date.now() + 3_600_000
      const text = new RegExp(
        `Get offset error for table bucket TableBucket\\{tableId=\\d+, bucket=0\\}, the fetch timestamp ${future} ` +
          'is larger than the current timestamp \\d+',
      )
      const java = await env.java.error(['offsets', db, 'ts', String(future)])
      expect(java).toContain('org.apache.fluss.exception.InvalidTimestampException: Get offset error')
      expect(java).toMatch(text)
      const python = await env.python.error(['offsets', db, 'ts', String(future)])
      expect(python).toContain('FlussError(code=38)')
      expect(python).toMatch(text)
    },
  )

  kvIt("a fetch beyond the log end: FetchException with LogOffsetOutOfRangeException's text", async () => {
    await env.java.createTable(db, 'range', { columns: COLUMNS, primaryKey: ['id'], buckets: 1 })
    await env.java.upsert(db, 'range', WRITES)
    const text = new RegExp(
      'Received request for offset 100 for table bucket TableBucket\\{tableId=\\d+, bucket=0\\}, ' +
        'but we only have log segments from offset 0 up to 4\\.',
    )
    const java = await env.java.error(['scan-from', db, 'range', '0', '100'])
    expect(java).toContain(
      'org.apache.fluss.exception.FetchException: The fetching offset 100 is out of range: ' +
        'org.apache.fluss.exception.LogOffsetOutOfRangeException: Received request',
    )
    expect(java).toMatch(text)
    expect(await env.python.error(['scan-from', db, 'range', '0', '100'])).toMatch(text)
  })

  kvIt("DDL refusals carry Fluss's exceptions and texts", async () => {
    const spec = env.java.file('spec', { columns: COLUMNS, primaryKey: ['id'], buckets: 1 })
    await env.java.createTable(db, 'ddl', { columns: COLUMNS, primaryKey: ['id'], buckets: 1 })
    expect(await env.java.error(['create-table', db, 'ddl', spec])).toContain(
      thrown('TableAlreadyExistException', `Table ${db}.ddl already exists.`),
    )
    expect(await env.java.error(['create-database', db])).toContain(
      thrown('DatabaseAlreadyExistException', `Database ${db} already exists.`),
    )
    expect(await env.java.error(['create-table', 'no_such_db', 'x', spec])).toContain(
      thrown('DatabaseNotExistException', 'Database no_such_db does not exist.'),
    )
    expect(await env.java.error(['offsets', db, 'missing', 'latest'])).toContain(
      thrown('TableNotExistException', `Table '${db}.missing' does not exist.`),
    )
  })
})
