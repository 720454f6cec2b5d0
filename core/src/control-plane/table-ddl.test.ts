import { beforeEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { databaseDescriptor, type TablePath } from '../metadata/index.js'
import { MemoryMetaStore, tableIdKey, tablePathKey } from '../metastore/index.js'
import { testLogTable, testPkTable } from '../testing/test-tables.js'
import { Catalog } from './catalog.js'
import { createDatabase, createTable, dropDatabase, dropTable, updateTableDescriptor } from './table-ddl.js'
import { tableInfoOf } from './table-items.js'

let store: MemoryMetaStore
let catalog: Catalog
let now = 1_000
const path: TablePath = { databaseName: 'db', tableName: 't' }

async function rejects(p: Promise<unknown>): Promise<FlussError> {
  const e = await p.then(
    () => undefined,
    err => err,
  )
  if (!(e instanceof FlussError)) throw new Error(`expected a FlussError, got ${String(e)}`)
  return e
}

beforeEach(async () => {
  store = new MemoryMetaStore()
  catalog = new Catalog(store, { nowMs: () => now })
  await createDatabase(catalog, 'db', databaseDescriptor({ k: 'v' }, 'a comment'), false)
})

describe('database DDL', () => {
  it('creates, reads, lists and drops a database', async () => {
    const db = await catalog.getDatabaseOrThrow('db')
    expect(db.descriptor).toEqual({ comment: 'a comment', customProperties: { k: 'v' } })
    expect(db.createdTimeMs).toBe(1_000)
    expect((await catalog.listDatabases()).map(d => d.databaseName)).toEqual(['db'])
    expect(await dropDatabase(catalog, 'db', { ignoreIfNotExists: false, cascade: false })).toEqual({
      dropped: true,
      tables: [],
    })
    expect(await catalog.databaseExists('db')).toBe(false)
  })

  it('refuses duplicates and missing databases unless told to ignore them', async () => {
    expect((await rejects(createDatabase(catalog, 'db', databaseDescriptor(), false))).errorName).toBe(
      'DATABASE_ALREADY_EXIST',
    )
    expect(await createDatabase(catalog, 'db', databaseDescriptor(), true)).toBe(false)
    const missing = await rejects(dropDatabase(catalog, 'nope', { ignoreIfNotExists: false, cascade: false }))
    expect(missing.errorName).toBe('DATABASE_NOT_EXIST')
    expect((await dropDatabase(catalog, 'nope', { ignoreIfNotExists: true, cascade: false })).dropped).toBe(
      false,
    )
    expect((await rejects(catalog.listTables('nope'))).errorName).toBe('DATABASE_NOT_EXIST')
  })

  it('refuses to drop a non-empty database without cascade, and drops its tables with it', async () => {
    await createTable(catalog, {
      tablePath: path,
      descriptor: testLogTable(2),
      assignment: [[1], [2]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    })
    const notEmpty = await rejects(dropDatabase(catalog, 'db', { ignoreIfNotExists: false, cascade: false }))
    expect(notEmpty.errorName).toBe('DATABASE_NOT_EMPTY')
    const { tables } = await dropDatabase(catalog, 'db', { ignoreIfNotExists: false, cascade: true })
    expect(tables.map(t => [t.tablePath.tableName, t.state])).toEqual([['t', 'DROPPED']])
    expect(await catalog.tableExists(path)).toBe(false)
  })

  it('treats names that can never be stored as absent', async () => {
    expect(await catalog.databaseExists('a#b')).toBe(false)
    expect(await catalog.tableExists({ databaseName: 'db', tableName: '' })).toBe(false)
  })
})

describe('table DDL', () => {
  it('creates a table: item READY, schema 1, pointer, buckets led by their first replica', async () => {
    const created = await createTable(catalog, {
      tablePath: path,
      descriptor: testPkTable(2, 2),
      assignment: [
        [1, 2],
        [2, 1],
      ],
      coordinatorEpoch: 7,
      ignoreIfExists: false,
    })
    const table = await catalog.getTableOrThrow(path)
    expect(created?.table).toEqual(table)
    expect(table.state).toBe('READY')
    expect(tableInfoOf(table).primaryKeys).toEqual(['id'])
    expect((await catalog.getSchema(table.tableId, 1))?.schema.columnNames).toEqual(['id', 'v'])
    expect(await catalog.listTables('db')).toEqual(['t'])
    const buckets = await catalog.listBuckets(table.tableId, null)
    expect(buckets.map(b => b.leaderAndIsr)).toEqual([
      { leader: 1, leaderEpoch: 0, isr: [1, 2], replicas: [1, 2], bucketEpoch: 0, coordinatorEpoch: 7 },
      { leader: 2, leaderEpoch: 0, isr: [2, 1], replicas: [2, 1], bucketEpoch: 0, coordinatorEpoch: 7 },
    ])
  })

  it('refuses an existing table, a missing database, and honours ignoreIfExists', async () => {
    const req = {
      tablePath: path,
      descriptor: testLogTable(1),
      assignment: [[1]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    }
    await createTable(catalog, req)
    expect((await rejects(createTable(catalog, req))).errorName).toBe('TABLE_ALREADY_EXIST')
    expect(await createTable(catalog, { ...req, ignoreIfExists: true })).toBeUndefined()
    const noDb = await rejects(
      createTable(catalog, { ...req, tablePath: { databaseName: 'x', tableName: 't' } }),
    )
    expect(noDb.errorName).toBe('DATABASE_NOT_EXIST')
  })

  it('lets exactly one of two concurrent creates of one path win; the loser leaves nothing behind', async () => {
    const req = (n: number) => ({
      tablePath: path,
      descriptor: testLogTable(n),
      assignment: Array.from({ length: n }, () => [1]),
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    })
    const results = await Promise.allSettled([createTable(catalog, req(1)), createTable(catalog, req(2))])
    const failures = results.filter(r => r.status === 'rejected') as PromiseRejectedResult[]
    expect(failures.map(f => (f.reason as FlussError).errorName)).toEqual(['TABLE_ALREADY_EXIST'])
    const winner = await catalog.getTableOrThrow(path)
    const loserId = winner.tableId === 0 ? 1 : 0
    expect(await catalog.getTableById(loserId)).toBeUndefined()
    expect(await catalog.listAllBuckets(loserId)).toEqual([])
  })

  it('drops a table: the pointer goes, the item is DROPPED, the name is free again', async () => {
    const req = {
      tablePath: path,
      descriptor: testLogTable(1),
      assignment: [[1]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    }
    const first = await createTable(catalog, req)
    const dropped = await dropTable(catalog, path, false)
    expect(dropped?.state).toBe('DROPPED')
    expect(await catalog.getTable(path)).toBeUndefined()
    expect(await store.get(tablePathKey('db', 't').pk, tablePathKey('db', 't').sk)).toBeUndefined()
    expect((await rejects(dropTable(catalog, path, false))).errorName).toBe('TABLE_NOT_EXIST')
    expect(await dropTable(catalog, path, true)).toBeUndefined()
    const second = await createTable(catalog, req)
    expect(second?.table.tableId).not.toBe(first?.table.tableId)
  })

  it('updates a descriptor only at the version it was read at', async () => {
    await createTable(catalog, {
      tablePath: path,
      descriptor: testLogTable(1),
      assignment: [[1]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    })
    const table = await catalog.getTableOrThrow(path)
    now = 5_000
    const altered = table.descriptor.withProperties({ ...table.descriptor.properties, 'table.log.ttl': '1h' })
    const updated = await updateTableDescriptor(catalog, table, altered)
    expect((await catalog.getTableOrThrow(path)).descriptor.properties['table.log.ttl']).toBe('1h')
    expect(updated.modifiedTimeMs).toBe(5_000)
    expect((await rejects(updateTableDescriptor(catalog, table, altered))).errorName).toBe(
      'METASTORE_CONFLICT',
    )
  })

  it('refuses to read items it did not write, or written by a newer release', async () => {
    const key = tableIdKey(42)
    await store.put(key.pk, key.sk, { format: 2, state: 'READY' }, { version: 'absent' })
    expect((await rejects(catalog.getTableById(42))).errorName).toBe('CORRUPT_MESSAGE')
    await store.put(key.pk, key.sk, { format: 1, state: 'GONE' }, { version: 1 })
    const e = await rejects(catalog.getTableById(42))
    expect(e.errorName).toBe('CORRUPT_MESSAGE')
    expect(e.message).toContain('TABLE#00000000000000000042/TABLE')
  })
})
