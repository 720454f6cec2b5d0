import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

describe('snapshot route', () => {
  it('returns the current rows of a primary-key table, bounded and projected', async () => {
    const gw = await withDatabase(testGateway({ 'gateway.rest.snapshot.max-rows': 2 }))
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'kv',
      schema: {
        columns: [
          { name: 'k', type: 'INT NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        primary_key: ['k'],
      },
    })
    await gw.call('POST', '/v1/databases/db/tables/kv/upsert', {
      rows: [
        { k: 1, v: 'a' },
        { k: 2, v: 'b' },
        { k: 1, v: 'c' },
      ],
    })
    const all = await gw.call('GET', '/v1/databases/db/tables/kv/snapshot')
    expect(all.body).toEqual({
      rows: [
        { k: 1, v: 'c' },
        { k: 2, v: 'b' },
      ],
      truncated: false,
    })
    const one = await gw.call('GET', '/v1/databases/db/tables/kv/snapshot?limit=1&columns=v')
    expect(one.body).toEqual({ rows: [{ v: 'c' }], truncated: true })
    expect((await gw.call('GET', '/v1/databases/db/tables/kv/snapshot?limit=0')).status).toBe(400)
    expect((await gw.call('GET', '/v1/databases/db/tables/kv/snapshot?partition=x')).status).toBe(400)
    expect((await gw.call('GET', '/v1/databases/db/tables/kv/snapshot?nope=1')).body.error.message).toMatch(
      /Unknown query parameter 'nope'/,
    )
    expect(
      (await gw.call('GET', '/v1/databases/db/tables/kv/snapshot?limit=1&limit=2')).body.error.message,
    ).toMatch(/more than once/)
  })

  it('refuses snapshots of log tables', async () => {
    const gw = await withDatabase(testGateway())
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'l',
      schema: { columns: [{ name: 'k', type: 'INT' }] },
    })
    expect((await gw.call('GET', '/v1/databases/db/tables/l/snapshot')).status).toBe(409)
  })
})
