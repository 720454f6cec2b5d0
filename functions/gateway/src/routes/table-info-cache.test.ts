import { DataTypes, notNull } from '@sluice/core'
import { Configuration } from '@sluice/core/config'
import { Schema, TableDescriptor, TableInfo, type TablePath } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { createApp } from '../app.js'
import { TableChangedError } from '../backend/gateway-backend.js'
import { MemoryGatewayBackend } from '../testing/memory-backend.js'
import { MemoryTable } from '../testing/memory-catalog.js'
import { send } from '../testing/test-app.js'
import { SILENT_LOGGER } from '../types.js'
import { TableInfoCache } from './table-info-cache.js'

class ManualClock {
  now = 1_000_000
  nowMs(): number {
    return this.now
  }
}

const path = (tableName: string): TablePath => ({ databaseName: 'db', tableName })

function infoOf(tableName: string, tableId: number): TableInfo {
  const schema = Schema.newBuilder().column('id', DataTypes.INT()).build()
  const d = TableDescriptor.builder().schema(schema).distributedBy(1).build()
  return TableInfo.of(path(tableName), tableId, 1, d, 0, 0)
}

describe('TableInfoCache', () => {
  it('keeps an info for ttlMs, then loads it again', async () => {
    const clock = new ManualClock()
    const cache = new TableInfoCache(1000, 8, clock)
    let loads = 0
    const load = async () => infoOf('t', ++loads)
    expect(await cache.get(path('t'), load)).toMatchObject({ loaded: true, info: { tableId: 1 } })
    clock.now += 999
    expect(await cache.get(path('t'), load)).toMatchObject({ loaded: false, info: { tableId: 1 } })
    clock.now += 1
    expect(await cache.get(path('t'), load)).toMatchObject({ loaded: true, info: { tableId: 2 } })
    cache.invalidate(path('t'))
    expect((await cache.get(path('t'), load)).info.tableId).toBe(3)
    cache.invalidateDatabase('db')
    expect(cache.size).toBe(0)
  })

  it('holds at most maxEntries tables, dropping the one loaded longest ago', async () => {
    const cache = new TableInfoCache(60_000, 3, new ManualClock())
    const loaded: string[] = []
    const load = (name: string) => async () => {
      loaded.push(name)
      return infoOf(name, 1)
    }
    for (const name of ['a', 'b', 'c', 'd', 'a', 'e']) await cache.get(path(name), load(name))
    expect(cache.size).toBe(3)
    expect(loaded).toEqual(['a', 'b', 'c', 'd', 'a', 'e'])
    await cache.get(path('e'), load('e'))
    await cache.get(path('d'), load('d'))
    expect(loaded).toEqual(['a', 'b', 'c', 'd', 'a', 'e'])
  })

  it('shares one load between concurrent requests, keeps no failed load, and can be turned off', async () => {
    const cache = new TableInfoCache(1000, 8, new ManualClock())
    let loads = 0
    const slow = async () => {
      loads++
      await new Promise(resolve => setTimeout(resolve, 5))
      return infoOf('t', loads)
    }
    const [a, b] = await Promise.all([cache.get(path('t'), slow), cache.get(path('t'), slow)])
    expect([loads, a.loaded, b.loaded, b.info]).toEqual([1, true, false, a.info])
    const failing = async () => {
      throw new Error('down')
    }
    await expect(cache.get(path('u'), failing)).rejects.toThrow('down')
    expect((await cache.get(path('u'), async () => infoOf('u', 9))).info.tableId).toBe(9)
    const off = new TableInfoCache(0, 8, new ManualClock())
    await off.get(path('t'), slow)
    await off.get(path('t'), slow)
    expect([loads, off.size]).toEqual([3, 0])
  })
})

const COLUMNS = [
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'v', type: 'INT' },
]

async function setup(ttlMs = 60_000) {
  const clock = new ManualClock()
  const backend = new MemoryGatewayBackend(clock)
  const limits = { tableInfoCacheTtlMs: ttlMs }
  const app = createApp({ backend, config: Configuration.load({}), logger: SILENT_LOGGER, limits, clock })
  const call = (method: string, url: string, body?: unknown) => send(app, method, url, body)
  expect((await call('POST', '/v1/databases', { name: 'db' })).status).toBe(201)
  const table = { name: 't', schema: { columns: COLUMNS } }
  expect((await call('POST', '/v1/databases/db/tables', table)).status).toBe(201)
  const append = (rows: unknown[]) => call('POST', '/v1/databases/db/tables/t/append', { rows })
  const loads = () => backend.calls.get('getTableInfo') ?? 0
  const rows = () => [...backend.catalog.table(path('t')).logs.values()].flat().map(r => r.row)
  return { clock, backend, call, append, loads, rows }
}

/** Drops and creates `db.t` behind the gateway's back (as another client would). */
function recreate(backend: MemoryGatewayBackend, vType: ReturnType<typeof DataTypes.INT>): void {
  backend.catalog.dropTable(path('t'), false)
  const schema = Schema.newBuilder().column('id', notNull(DataTypes.INT())).column('v', vType).build()
  backend.catalog.createTable(path('t'), TableDescriptor.builder().schema(schema).build(), false)
}

describe('write routes with kept table info', () => {
  it('load the table once per ttl for a stream of writes', async () => {
    const { clock, append, loads } = await setup(1000)
    const before = loads()
    for (let i = 0; i < 5; i++) expect((await append([{ id: i }])).status).toBe(200)
    expect(loads() - before).toBe(1)
    clock.now += 1000
    expect((await append([{ id: 9 }])).status).toBe(200)
    expect(loads() - before).toBe(2)
  })

  it('never write rows validated against a table dropped and created again elsewhere', async () => {
    const { backend, append, rows } = await setup()
    expect((await append([{ id: 1, v: 1 }])).status).toBe(200)
    // Fits both schemas: the kept info passes it, the backend refuses the old table, it is redone.
    recreate(backend, DataTypes.STRING())
    expect((await append([{ id: 2 }])).status).toBe(200)
    // Fits only the new schema: refused by the kept info, checked against a fresh load, written.
    expect((await append([{ id: 3, v: 'x' }])).status).toBe(200)
    expect(rows()).toEqual([
      [2, null],
      [3, 'x'],
    ])
    // Fits only the old schema: the table changed again, so the answer is the new schema's error.
    recreate(backend, DataTypes.BOOLEAN())
    const res = await append([{ id: 4, v: 'y' }])
    expect([res.status, res.body.error.message]).toEqual([
      400,
      'rows[0].v: expected true or false, got string',
    ])
    expect(rows()).toEqual([])
  })

  it('never write with a schema the table no longer has', async () => {
    const { backend, append, rows } = await setup()
    expect((await append([{ id: 1 }])).status).toBe(200)
    const t = backend.catalog.table(path('t'))
    const schema = Schema.newBuilder().fromSchema(t.info.schema).column('note', DataTypes.STRING()).build()
    const d = TableDescriptor.builder().schema(schema).distributedBy(1).build()
    const altered = TableInfo.of(path('t'), t.info.tableId, t.info.schemaId + 1, d, 0, 0)
    const next = new MemoryTable(altered)
    for (const [bucket, log] of t.logs) next.logs.set(bucket, log)
    backend.catalog.tables.set('db.t', next)
    expect((await append([{ id: 2, note: 'n' }])).status).toBe(200)
    expect((await append([{ id: 3 }])).status).toBe(200)
    expect(rows()).toEqual([
      [1, null],
      [2, null, 'n'],
      [3, null, null],
    ])
  })

  it('forget tables dropped through the gateway at once', async () => {
    const { call, append } = await setup()
    expect((await append([{ id: 1 }])).status).toBe(200)
    expect((await call('DELETE', '/v1/databases/db/tables/t')).status).toBe(204)
    expect((await append([{ id: 2 }])).body.error.code).toBe('table_not_found')
    const table = { name: 't', schema: { columns: [{ name: 'id', type: 'STRING' }] } }
    expect((await call('POST', '/v1/databases/db/tables', table)).status).toBe(201)
    expect((await append([{ id: 'a' }])).status).toBe(200)
    expect((await call('DELETE', '/v1/databases/db?cascade=true')).status).toBe(204)
    expect((await append([{ id: 'b' }])).body.error.code).toMatch(/^(database|table)_not_found$/)
  })

  it('answer 409 when the table keeps changing, having written nothing', async () => {
    const { backend, append, loads } = await setup()
    expect((await append([{ id: 1 }])).status).toBe(200)
    backend.append = async (_ctx, table) => {
      throw new TableChangedError(table.tablePath)
    }
    const before = loads()
    const res = await append([{ id: 2 }])
    expect([res.status, res.body.error.code]).toEqual([409, 'failed_precondition'])
    expect(res.body.error.message).toMatch(/changed while this request was served.*nothing was written/)
    expect(loads() - before).toBe(1)
  })

  it('serve lookups from kept info, checked again when the table changed', async () => {
    const { backend, call, loads } = await setup()
    const pkTable = (idType: string) => ({
      name: 'pk',
      schema: {
        columns: [
          { name: 'id', type: `${idType} NOT NULL` },
          { name: 'v', type: 'STRING' },
        ],
        primary_key: ['id'],
      },
    })
    expect((await call('POST', '/v1/databases/db/tables', pkTable('INT'))).status).toBe(201)
    expect(
      (await call('POST', '/v1/databases/db/tables/pk/upsert', { rows: [{ id: 1, v: 'a' }] })).status,
    ).toBe(200)
    const lookup = (id: unknown) => call('POST', '/v1/databases/db/tables/pk/lookup', { keys: [{ id }] })
    const before = loads()
    for (let i = 0; i < 3; i++) expect((await lookup(1)).body).toEqual({ rows: [{ id: 1, v: 'a' }] })
    expect(loads() - before).toBe(0)
    // Created again elsewhere with a STRING key: the kept info takes 1, the backend refuses the old
    // table, and the key is checked against the new one.
    const recreate = (idType: 'STRING' | 'INT') => {
      backend.catalog.dropTable(path('pk'), false)
      const type = idType === 'STRING' ? DataTypes.STRING() : DataTypes.INT()
      const schema = Schema.newBuilder()
        .column('id', notNull(type))
        .column('v', DataTypes.STRING())
        .primaryKey('id')
        .build()
      backend.catalog.createTable(path('pk'), TableDescriptor.builder().schema(schema).build(), false)
    }
    recreate('STRING')
    const refused = await lookup(1)
    expect([refused.status, refused.body.error.message]).toEqual([
      400,
      'keys[0].id: expected a string, got number',
    ])
    expect((await lookup('1')).body).toEqual({ rows: [null] })
    // Created again with an INT key: the kept info (STRING) refuses 1, a fresh load takes it.
    recreate('INT')
    expect((await lookup(1)).body).toEqual({ rows: [null] })
  })
})
