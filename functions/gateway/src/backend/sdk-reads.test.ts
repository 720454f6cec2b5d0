import { afterEach, describe, expect, it } from 'vitest'
import { type SdkGateway, startSdkGateway } from '../testing/sdk-gateway.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const ORDERS = '/v1/databases/db/tables/orders'

/** `orders` (primary key customer + order_id, bucketed by customer over 3 buckets) with 5 rows. */
async function setupOrders(config: Record<string, string> = {}): Promise<SdkGateway> {
  const gw = await startSdkGateway(cleanups, config)
  await gw.call('POST', '/v1/databases', { name: 'db' })
  const created = await gw.call('POST', '/v1/databases/db/tables', {
    name: 'orders',
    schema: {
      columns: [
        { name: 'customer', type: 'STRING NOT NULL' },
        { name: 'order_id', type: 'INT NOT NULL' },
        { name: 'total', type: 'DECIMAL(8, 2)' },
      ],
      primary_key: ['customer', 'order_id'],
    },
    bucket_keys: ['customer'],
    bucket_count: 3,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const rows = [
    ['a', 2],
    ['a', 1],
    ['a', 3],
    ['b', 1],
    ['c', 7],
  ].map(([customer, order_id]) => ({ customer, order_id, total: `${order_id}.50` }))
  const upserted = await gw.call('POST', `${ORDERS}/upsert`, { rows })
  expect(upserted.status, JSON.stringify(upserted.body)).toBe(200)
  return gw
}

const order = (customer: string, id: number) => ({ customer, order_id: id, total: `${id}.50` })

describe('lookups over the SDK', () => {
  it('looks up a batch of keys in key order, null for absent keys', async () => {
    const gw = await setupOrders()
    const res = await gw.call('POST', `${ORDERS}/lookup`, {
      keys: [
        { customer: 'b', order_id: 1 },
        { customer: 'z', order_id: 1 },
        { customer: 'a', order_id: 3 },
        { customer: 'a', order_id: 9 },
      ],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.rows).toEqual([order('b', 1), null, order('a', 3), null])
    expect(gw.cluster.kvRequests.lookups.every(l => l.api === 'LOOKUP')).toBe(true)

    await gw.call('POST', `${ORDERS}/delete`, { keys: [{ customer: 'b', order_id: 1 }] })
    const after = await gw.call('POST', `${ORDERS}/lookup`, { keys: [{ customer: 'b', order_id: 1 }] })
    expect(after.body.rows).toEqual([null])
  })

  it('refuses incomplete or mistyped keys whole, and lookups on log tables', async () => {
    const gw = await setupOrders()
    const sent = gw.cluster.kvRequests.lookups.length
    const missing = await gw.call('POST', `${ORDERS}/lookup`, {
      keys: [{ customer: 'a', order_id: 1 }, { customer: 'a' }],
    })
    expect([missing.status, missing.body.error.code]).toEqual([400, 'invalid_argument'])
    expect(missing.body.error.message).toMatch(/keys\[1\]/)
    const mistyped = await gw.call('POST', `${ORDERS}/lookup`, { keys: [{ customer: 'a', order_id: 'x' }] })
    expect(mistyped.status).toBe(400)
    expect(gw.cluster.kvRequests.lookups.length).toBe(sent)
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'log',
      schema: { columns: [{ name: 'k', type: 'INT' }] },
    })
    const log = await gw.call('POST', '/v1/databases/db/tables/log/lookup', { keys: [{ k: 1 }] })
    expect([log.status, log.body.error.code]).toEqual([409, 'failed_precondition'])
  })

  it('prefix-looks up by the bucket key, in key order, cut to the limit', async () => {
    const gw = await setupOrders()
    const res = await gw.call('POST', `${ORDERS}/prefix-lookup`, {
      columns: ['customer'],
      prefixes: [{ customer: 'a' }, { customer: 'z' }, { customer: 'b' }],
      limit: 2,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([
      { rows: [order('a', 1), order('a', 2)], truncated: true },
      { rows: [], truncated: false },
      { rows: [order('b', 1)], truncated: false },
    ])
    expect(gw.cluster.kvRequests.lookups.at(-1)?.api).toBe('PREFIX_LOOKUP')
    const full = await gw.call('POST', `${ORDERS}/prefix-lookup`, {
      columns: ['customer'],
      prefixes: [{ customer: 'a' }],
    })
    expect(full.body.results[0]).toEqual({
      rows: [order('a', 1), order('a', 2), order('a', 3)],
      truncated: false,
    })
  })

  it('answers 400 with the cluster rule for lookup columns that are not the bucket key', async () => {
    const gw = await setupOrders()
    const res = await gw.call('POST', `${ORDERS}/prefix-lookup`, {
      columns: ['order_id'],
      prefixes: [{ order_id: 1 }],
    })
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_argument'])
    expect(res.body.error.message).toMatch(/must contain all bucket keys \[customer\]/)
  })
})

describe('snapshots over the SDK', () => {
  it('reads every bucket up to the limit, each asked for one row more than still wanted', async () => {
    const gw = await setupOrders()
    const all = await gw.call('GET', `${ORDERS}/snapshot`)
    expect(all.status, JSON.stringify(all.body)).toBe(200)
    expect(all.body.truncated).toBe(false)
    const key = (r: { customer: string; order_id: number }) => `${r.customer}${r.order_id}`
    expect(all.body.rows.map(key).sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'c7'])

    const scansBefore = gw.cluster.kvRequests.limitScans.length
    const two = await gw.call('GET', `${ORDERS}/snapshot?limit=2&columns=order_id,customer`)
    expect(two.body.rows).toHaveLength(2)
    expect(two.body.truncated).toBe(true)
    expect(Object.keys(two.body.rows[0])).toEqual(['order_id', 'customer'])
    const limits = gw.cluster.kvRequests.limitScans.slice(scansBefore).map(s => s.limit)
    expect(limits[0]).toBe(3)
    expect(limits.every(l => l >= 1 && l <= 3)).toBe(true)

    const exact = await gw.call('GET', `${ORDERS}/snapshot?limit=5`)
    expect([exact.body.rows.length, exact.body.truncated]).toEqual([5, false])
  })

  it('cuts a larger limit to gateway.rest.snapshot.max-rows', async () => {
    const gw = await setupOrders({ 'gateway.rest.snapshot.max-rows': '4' })
    const res = await gw.call('GET', `${ORDERS}/snapshot?limit=100`)
    expect([res.body.rows.length, res.body.truncated]).toEqual([4, true])
  })
})

describe('partitioned primary-key tables over the SDK', () => {
  it('looks up, prefix-looks up and snapshots one partition', async () => {
    const gw = await startSdkGateway(cleanups)
    await gw.call('POST', '/v1/databases', { name: 'db' })
    const created = await gw.call('POST', '/v1/databases/db/tables', {
      name: 'visits',
      schema: {
        columns: [
          { name: 'day', type: 'STRING NOT NULL' },
          { name: 'user', type: 'STRING NOT NULL' },
          { name: 'page', type: 'INT NOT NULL' },
        ],
        primary_key: ['day', 'user', 'page'],
      },
      partition_keys: ['day'],
      bucket_keys: ['user'],
      bucket_count: 2,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    for (const day of ['d1', 'd2'])
      await gw.call('POST', '/v1/databases/db/tables/visits/partitions', { spec: { day } })
    const rows = [
      { day: 'd1', user: 'u', page: 1 },
      { day: 'd1', user: 'u', page: 2 },
      { day: 'd1', user: 'v', page: 1 },
      { day: 'd2', user: 'u', page: 3 },
    ]
    expect((await gw.call('POST', '/v1/databases/db/tables/visits/upsert', { rows })).status).toBe(200)
    const base = '/v1/databases/db/tables/visits'
    const found = await gw.call('POST', `${base}/lookup`, {
      keys: [rows[3], { day: 'd9', user: 'u', page: 3 }, { day: 'd1', user: 'u', page: 3 }],
    })
    expect(found.body.rows).toEqual([rows[3], null, null])
    const prefixed = await gw.call('POST', `${base}/prefix-lookup`, {
      columns: ['day', 'user'],
      prefixes: [{ day: 'd1', user: 'u' }],
    })
    expect(prefixed.status, JSON.stringify(prefixed.body)).toBe(200)
    expect(prefixed.body.results).toEqual([{ rows: [rows[0], rows[1]], truncated: false }])
    const d2 = await gw.call('GET', `${base}/snapshot?partition=d2`)
    expect(d2.body).toEqual({ rows: [rows[3]], truncated: false })
    const unknown = await gw.call('GET', `${base}/snapshot?partition=d7`)
    expect(unknown.status).toBe(400)
    expect((await gw.call('GET', `${base}/snapshot`)).status).toBe(400)
  })
})
