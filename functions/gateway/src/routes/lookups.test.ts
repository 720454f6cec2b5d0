import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

async function setup(limits = {}) {
  const gw = await withDatabase(
    testGateway(
      {
        'gateway.rest.lookup.max-keys': 3,
        'gateway.rest.prefix-lookup.max-prefixes': 2,
        'gateway.rest.prefix-lookup.max-rows-per-prefix': 2,
        'gateway.rest.lookup.max-key-bytes': 16,
      },
      limits,
    ),
  )
  await gw.call('POST', '/v1/databases/db/tables', {
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
  })
  const rows = [
    ['a', 1],
    ['a', 2],
    ['a', 3],
    ['b', 1],
  ].map(([customer, order_id]) => ({ customer, order_id, total: '9.99' }))
  expect((await gw.call('POST', '/v1/databases/db/tables/orders/upsert', { rows })).status).toBe(200)
  return gw
}

describe('lookup routes', () => {
  it('looks up a batch of keys in key order', async () => {
    const gw = await setup()
    const res = await gw.call('POST', '/v1/databases/db/tables/orders/lookup', {
      keys: [
        { customer: 'b', order_id: 1 },
        { customer: 'z', order_id: 1 },
      ],
    })
    expect(res.body.rows).toEqual([{ customer: 'b', order_id: 1, total: '9.99' }, null])
  })

  it('enforces key count, key size and key completeness', async () => {
    const gw = await setup()
    const four = Array.from({ length: 4 }, (_, i) => ({ customer: 'a', order_id: i }))
    expect((await gw.call('POST', '/v1/databases/db/tables/orders/lookup', { keys: four })).status).toBe(413)
    const long = await gw.call('POST', '/v1/databases/db/tables/orders/lookup', {
      keys: [{ customer: 'x'.repeat(40), order_id: 1 }],
    })
    expect([long.status, long.body.error.message]).toEqual([
      413,
      expect.stringMatching(/keys\[0\]: the key is \d+ bytes/),
    ])
    const partial = await gw.call('POST', '/v1/databases/db/tables/orders/lookup', {
      keys: [{ customer: 'a' }],
    })
    expect(partial.body.error.message).toMatch(/keys\[0\]\.order_id: a value is required/)
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/orders/lookup', {
          keys: [{ customer: 'a', order_id: 1, total: '1' }],
        })
      ).status,
    ).toBe(400)
    expect(gw.backend.calls.get('lookup')).toBeUndefined()
  })

  it('looks up by prefix with a per-prefix row limit', async () => {
    const gw = await setup()
    const res = await gw.call('POST', '/v1/databases/db/tables/orders/prefix-lookup', {
      columns: ['customer'],
      prefixes: [{ customer: 'a' }, { customer: 'b' }],
    })
    expect(res.status).toBe(200)
    expect(
      res.body.results.map((r: { rows: unknown[]; truncated: boolean }) => [r.rows.length, r.truncated]),
    ).toEqual([
      [2, true],
      [1, false],
    ])
    const one = await gw.call('POST', '/v1/databases/db/tables/orders/prefix-lookup', {
      columns: ['customer'],
      prefixes: [{ customer: 'a' }],
      limit: 1,
    })
    expect(one.body.results[0].rows).toHaveLength(1)
  })

  it('enforces prefix limits and lookup columns', async () => {
    const gw = await setup()
    const three = [{ customer: 'a' }, { customer: 'b' }, { customer: 'c' }]
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/orders/prefix-lookup', {
          columns: ['customer'],
          prefixes: three,
        })
      ).status,
    ).toBe(413)
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/orders/prefix-lookup', {
          columns: ['customer'],
          prefixes: [{ customer: 'a' }],
          limit: 3,
        })
      ).status,
    ).toBe(413)
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/orders/prefix-lookup', {
          columns: ['total'],
          prefixes: [{ total: '1' }],
        })
      ).body.error.message,
    ).toMatch(/not a primary-key column/)
  })

  it('refuses lookups on log tables', async () => {
    const gw = await setup()
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'logs',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
    })
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/lookup', { keys: [{ a: 1 }] })
    expect([res.status, res.body.error.code]).toEqual([409, 'failed_precondition'])
  })
})
