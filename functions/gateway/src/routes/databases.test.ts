import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

describe('database routes', () => {
  it('creates, lists, gets and drops databases', async () => {
    const gw = testGateway()
    const created = await gw.call('POST', '/v1/databases', {
      name: 'sales',
      comment: 'c',
      properties: { owner: 'me' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'sales', comment: 'c', properties: { owner: 'me' } })
    expect((await gw.call('GET', '/v1/databases')).body).toEqual({ databases: ['sales'] })
    expect((await gw.call('GET', '/v1/databases/sales')).body.name).toBe('sales')
    const dropped = await gw.call('DELETE', '/v1/databases/sales')
    expect(dropped.status).toBe(204)
    expect(dropped.body).toBeUndefined()
    expect((await gw.call('GET', '/v1/databases')).body).toEqual({ databases: [] })
  })

  it('maps missing, duplicate and non-empty databases to their codes', async () => {
    const gw = await withDatabase(testGateway())
    const missing = await gw.call('GET', '/v1/databases/nope')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('database_not_found')
    expect(missing.body.error.request_id).toBe(missing.headers.get('x-request-id'))
    const dup = await gw.call('POST', '/v1/databases', { name: 'db' })
    expect([dup.status, dup.body.error.code]).toEqual([409, 'database_already_exists'])
    expect((await gw.call('POST', '/v1/databases', { name: 'db', if_not_exists: true })).status).toBe(201)
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
    })
    const notEmpty = await gw.call('DELETE', '/v1/databases/db')
    expect([notEmpty.status, notEmpty.body.error.code]).toEqual([409, 'database_not_empty'])
    expect((await gw.call('DELETE', '/v1/databases/db?cascade=true')).status).toBe(204)
    expect((await gw.call('DELETE', '/v1/databases/db')).status).toBe(404)
    expect((await gw.call('DELETE', '/v1/databases/db?if_exists=true')).status).toBe(204)
  })

  it('validates names and bodies before calling the backend', async () => {
    const gw = testGateway()
    const bad = await gw.call('POST', '/v1/databases', { name: 'a b' })
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_argument'])
    expect(bad.body.error.message).toMatch(/^name: must match/)
    const reserved = await gw.call('POST', '/v1/databases', { name: '__sys' })
    expect(reserved.status).toBe(400)
    expect(reserved.body.error.message).toMatch(/reserved/)
    expect((await gw.call('POST', '/v1/databases', { name: 'x', extra: 1 })).body.error.message).toMatch(
      /extra: is not a known member/,
    )
    expect((await gw.call('POST', '/v1/databases', [])).body.error.message).toMatch(
      /request body: must be an object/,
    )
    expect((await gw.call('GET', '/v1/databases/bad%20name')).status).toBe(400)
    expect((await gw.call('DELETE', '/v1/databases/x?cascade=yes')).body.error.message).toMatch(
      /cascade.*true or false/,
    )
    expect(gw.backend.calls.get('createDatabase')).toBeUndefined()
  })

  it('renders backend failures with the error table: retriable ones with Retry-After', async () => {
    const gw = testGateway()
    gw.backend.failNext('listDatabases', new FlussError('NOT_LEADER_OR_FOLLOWER', 'moving'))
    const unavailable = await gw.call('GET', '/v1/databases')
    expect([unavailable.status, unavailable.body.error.code, unavailable.headers.get('retry-after')]).toEqual(
      [503, 'unavailable', '1'],
    )
    gw.backend.failNext('listDatabases', new FlussError('KV_STORAGE_EXCEPTION', 'disk'))
    const backend = await gw.call('GET', '/v1/databases')
    expect([backend.status, backend.body.error.code]).toEqual([500, 'backend'])
    gw.backend.failNext('listDatabases', new TypeError('secret detail'))
    const internal = await gw.call('GET', '/v1/databases')
    expect([internal.status, internal.body.error.code]).toEqual([500, 'internal'])
    expect(internal.body.error.message).not.toMatch(/secret/)
  })
})
