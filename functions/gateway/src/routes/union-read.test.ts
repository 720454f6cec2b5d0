import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

describe('union-read route', () => {
  it('returns the rows of a table up to the limit, projected, with the lake snapshot id', async () => {
    const gw = await withDatabase(testGateway({ 'gateway.rest.union-read.max-rows': 3 }))
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'logs',
      schema: {
        columns: [
          { name: 'id', type: 'INT' },
          { name: 'msg', type: 'STRING' },
        ],
      },
    })
    const rows = [1, 2, 3, 4].map(id => ({ id, msg: `m${id}` }))
    await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows })
    const all = await gw.call('GET', '/v1/databases/db/tables/logs/union-read')
    expect(all.status, JSON.stringify(all.body)).toBe(200)
    expect(all.body).toEqual({ rows: rows.slice(0, 3), truncated: true, lake_snapshot_id: null })
    const two = await gw.call('GET', '/v1/databases/db/tables/logs/union-read?limit=2&columns=msg')
    expect(two.body).toEqual({
      rows: [{ msg: 'm1' }, { msg: 'm2' }],
      truncated: true,
      lake_snapshot_id: null,
    })
    const bad = await gw.call('GET', '/v1/databases/db/tables/logs/union-read?columns=nope')
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_argument'])
    const missing = await gw.call('GET', '/v1/databases/db/tables/nope/union-read')
    expect(missing.status).toBe(404)
  })
})
