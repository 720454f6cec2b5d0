import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

const columns = [
  { name: 'id', type: 'BIGINT NOT NULL', comment: 'key' },
  { name: 'amount', type: { type: 'DECIMAL', precision: 10, scale: 2 } },
  { name: 'tags', type: 'ARRAY<STRING>' },
]

describe('table routes', () => {
  it('creates a primary-key table from compact and JSON types and returns its info and schema', async () => {
    const gw = await withDatabase(testGateway())
    const created = await gw.call('POST', '/v1/databases/db/tables', {
      name: 'orders',
      schema: { columns, primary_key: ['id'] },
      bucket_count: 4,
      properties: { 'table.log.ttl': '2d' },
      comment: 'orders',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({
      database: 'db',
      name: 'orders',
      kind: 'primary_key',
      bucket_count: 4,
      bucket_keys: ['id'],
      comment: 'orders',
    })
    expect(created.body.properties['table.log.ttl']).toBe('2d')
    const schema = (await gw.call('GET', '/v1/databases/db/tables/orders/schema')).body
    expect(schema.primary_key).toEqual(['id'])
    expect(schema.columns.map((c: { type_string: string }) => c.type_string)).toEqual([
      'BIGINT NOT NULL',
      'DECIMAL(10, 2)',
      'ARRAY<STRING>',
    ])
    expect(schema.columns[1].type).toEqual({ type: 'DECIMAL', precision: 10, scale: 2 })
    expect(schema.columns[0].comment).toBe('key')
    expect((await gw.call('GET', '/v1/databases/db/tables')).body).toEqual({ tables: ['orders'] })
    expect((await gw.call('GET', '/v1/databases/db/tables/orders')).body.table_id).toBe(created.body.table_id)
  })

  it('refuses bad schemas with errors naming the column', async () => {
    const gw = await withDatabase(testGateway())
    const badType = await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'DECIMAL(99)' }] },
    })
    expect([badType.status, badType.body.error.code]).toEqual([400, 'invalid_argument'])
    expect(badType.body.error.message).toMatch(/^schema\.columns\[0\]\.type: Decimal precision/)
    const badJsonType = await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: { type: 'CHAR' } }] },
    })
    expect(badJsonType.status).toBe(400)
    expect(badJsonType.body.error.message).toMatch(/schema\.columns\[0\]\.type.*length/)
    const badKey = await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }], primary_key: ['b'] },
    })
    expect(badKey.status).toBe(400)
    const noColumns = await gw.call('POST', '/v1/databases/db/tables', { name: 't', schema: { columns: [] } })
    expect(noColumns.body.error.message).toMatch(/schema\.columns: must have at least 1 items/)
    const badProperty = await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
      properties: { 'table.nope': 'x' },
    })
    expect(badProperty.status).toBe(400)
    expect(gw.backend.catalog.tables.size).toBe(0)
  })

  it('reports missing databases and tables, duplicates and drops', async () => {
    const gw = await withDatabase(testGateway())
    expect(
      (await gw.call('POST', '/v1/databases/none/tables', { name: 't', schema: { columns } })).body.error
        .code,
    ).toBe('database_not_found')
    expect((await gw.call('GET', '/v1/databases/none/tables')).status).toBe(404)
    const missing = await gw.call('GET', '/v1/databases/db/tables/none')
    expect([missing.status, missing.body.error.code]).toEqual([404, 'table_not_found'])
    await gw.call('POST', '/v1/databases/db/tables', { name: 't', schema: { columns } })
    expect(
      (await gw.call('POST', '/v1/databases/db/tables', { name: 't', schema: { columns } })).body.error.code,
    ).toBe('table_already_exists')
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables', {
          name: 't',
          schema: { columns },
          if_not_exists: true,
        })
      ).status,
    ).toBe(201)
    expect((await gw.call('DELETE', '/v1/databases/db/tables/t')).status).toBe(204)
    expect((await gw.call('DELETE', '/v1/databases/db/tables/t')).body.error.code).toBe('table_not_found')
    expect((await gw.call('DELETE', '/v1/databases/db/tables/t?if_exists=true')).status).toBe(204)
  })

  it('answers tiering status from the backend', async () => {
    const gw = await withDatabase(testGateway())
    await gw.call('POST', '/v1/databases/db/tables', { name: 't', schema: { columns } })
    expect((await gw.call('GET', '/v1/databases/db/tables/t/tiering')).body).toEqual({ lake_enabled: false })
  })
})
