import { afterEach, describe, expect, it } from 'vitest'
import { startSdkGateway } from '../testing/sdk-gateway.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const setup = () => startSdkGateway(cleanups)

describe('SdkBackend over HTTP against a Fluss RPC server', () => {
  it('runs DDL, appends and scans through the SDK', async () => {
    const { call } = await setup()
    expect((await call('POST', '/v1/databases', { name: 'shop', comment: 'c' })).status).toBe(201)
    expect((await call('GET', '/v1/databases')).body.databases).toContain('shop')
    const table = {
      name: 'events',
      schema: {
        columns: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'msg', type: 'STRING' },
          { name: 'n', type: 'BIGINT' },
        ],
      },
      bucket_count: 3,
    }
    const created = await call('POST', '/v1/databases/shop/tables', table)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.bucket_count).toBe(3)
    expect((await call('GET', '/v1/databases/shop/tables')).body.tables).toEqual(['events'])
    const rows = Array.from({ length: 20 }, (_, id) => ({ id, msg: `m${id}`, n: String(id * 1000) }))
    const appended = await call('POST', '/v1/databases/shop/tables/events/append', { rows })
    expect(appended.status, JSON.stringify(appended.body)).toBe(200)
    expect(appended.body).toEqual({ row_count: 20 })

    const seen: { id: number; n: string }[] = []
    let cursor: string | undefined
    for (let i = 0; i < 10 && seen.length < 20; i++) {
      const res = await call('POST', '/v1/databases/shop/tables/events/scan', {
        ...(cursor === undefined ? {} : { cursor }),
        columns: ['n', 'id'],
        limit: 8,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.records.length).toBeLessThanOrEqual(8)
      seen.push(...res.body.records.map((r: { row: { id: number; n: string } }) => r.row))
      cursor = res.body.cursor
    }
    expect(seen.map(r => r.id).sort((a, b) => a - b)).toEqual(rows.map(r => r.id))
    expect(seen.find(r => r.id === 7)).toEqual({ n: '7000', id: 7 })
    const done = await call('POST', '/v1/databases/shop/tables/events/scan', { cursor })
    expect(done.body.records).toEqual([])
  })

  it('a scan without a cursor reads every bucket fairly, says whether more is left, and continues', async () => {
    const { call } = await setup()
    await call('POST', '/v1/databases', { name: 'fair' })
    const created = await call('POST', '/v1/databases/fair/tables', {
      name: 'kv',
      schema: { columns: [{ name: 'k', type: 'INT NOT NULL' }], primary_key: ['k'] },
      bucket_count: 4,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const rows = Array.from({ length: 400 }, (_, k) => ({ k }))
    expect((await call('POST', '/v1/databases/fair/tables/kv/upsert', { rows })).status).toBe(200)
    type Rec = { bucket: number; row: { k: number } }
    const first = await call('POST', '/v1/databases/fair/tables/kv/scan', { limit: 40 })
    const perBucket = [0, 0, 0, 0]
    for (const r of first.body.records as Rec[]) perBucket[r.bucket]++
    expect(perBucket).toEqual([10, 10, 10, 10])
    expect(first.body.more).toBe(true)
    const seen = new Set((first.body.records as Rec[]).map(r => r.row.k))
    let { cursor, more } = first.body
    for (let i = 0; i < 20 && more; i++) {
      const next = await call('POST', '/v1/databases/fair/tables/kv/scan', { cursor, limit: 150 })
      for (const r of next.body.records as Rec[]) seen.add(r.row.k)
      ;({ cursor, more } = next.body)
    }
    expect(more).toBe(false)
    expect(seen.size).toBe(400)
    const after = await call('POST', '/v1/databases/fair/tables/kv/scan', { cursor })
    expect([after.body.records.length, after.body.more]).toEqual([0, false])
  })

  it('upserts, partially updates, deletes and reads back through the SDK; 501 for tiering status', async () => {
    const { call } = await setup()
    expect((await call('GET', '/v1/databases/nope')).body.error.code).toBe('database_not_found')
    await call('POST', '/v1/databases', { name: 'db' })
    expect((await call('GET', '/v1/databases/db/tables/nope')).body.error.code).toBe('table_not_found')
    await call('POST', '/v1/databases/db/tables', {
      name: 'kv',
      schema: {
        columns: [
          { name: 'k', type: 'INT NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        primary_key: ['k'],
      },
    })
    for (const [path, body] of [
      [
        'upsert',
        {
          rows: [
            { k: 1, v: 'a' },
            { k: 2, v: 'x' },
          ],
        },
      ],
      ['upsert', { rows: [{ k: 1, v: 'b' }], columns: ['v'] }],
      ['delete', { keys: [{ k: 2 }] }],
    ] as const) {
      const res = await call('POST', `/v1/databases/db/tables/kv/${path}`, body)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    const log = await call('POST', '/v1/databases/db/tables/kv/scan', {})
    expect(
      log.body.records.map((r: { change_type: string; row: unknown }) => [r.change_type, r.row]),
    ).toEqual([
      ['insert', { k: 1, v: 'a' }],
      ['insert', { k: 2, v: 'x' }],
      ['update_before', { k: 1, v: 'a' }],
      ['update_after', { k: 1, v: 'b' }],
      ['delete', { k: 2, v: 'x' }],
    ])
    const found = await call('POST', '/v1/databases/db/tables/kv/lookup', { keys: [{ k: 1 }, { k: 2 }] })
    expect(found.body.rows).toEqual([{ k: 1, v: 'b' }, null])
    expect((await call('GET', '/v1/databases/db/tables/kv/snapshot')).body).toEqual({
      rows: [{ k: 1, v: 'b' }],
      truncated: false,
    })
    expect((await call('GET', '/v1/databases/db/tables/kv/tiering')).status).toBe(501)
  })

  it('creates, lists and drops partitions through the SDK', async () => {
    const { call } = await setup()
    await call('POST', '/v1/databases', { name: 'db' })
    await call('POST', '/v1/databases/db/tables', {
      name: 'p',
      schema: {
        columns: [
          { name: 'day', type: 'STRING' },
          { name: 'v', type: 'INT' },
        ],
      },
      partition_keys: ['day'],
      bucket_count: 1,
    })
    const created = await call('POST', '/v1/databases/db/tables/p/partitions', { spec: { day: 'd1' } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.name).toBe('d1')
    const appended = await call('POST', '/v1/databases/db/tables/p/append', { rows: [{ day: 'd1', v: 1 }] })
    expect(appended.status, JSON.stringify(appended.body)).toBe(200)
    const scanned = await call('POST', '/v1/databases/db/tables/p/scan', {
      offsets: [{ partition: 'd1', bucket: 0, offset: 'earliest' }],
    })
    expect(
      scanned.body.records.map((r: { partition: string; row: unknown }) => [r.partition, r.row]),
    ).toEqual([['d1', { day: 'd1', v: 1 }]])
    expect((await call('DELETE', '/v1/databases/db/tables/p/partitions/d1')).status).toBe(204)
    expect((await call('GET', '/v1/databases/db/tables/p/partitions')).body.partitions).toEqual([])
  })
})
