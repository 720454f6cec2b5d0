import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

async function partitioned() {
  const gw = await withDatabase(testGateway())
  await gw.call('POST', '/v1/databases/db/tables', {
    name: 'events',
    schema: {
      columns: [
        { name: 'day', type: 'STRING' },
        { name: 'region', type: 'STRING' },
        { name: 'v', type: 'INT' },
      ],
    },
    partition_keys: ['day', 'region'],
  })
  return gw
}

describe('partition routes', () => {
  it('creates, lists and drops partitions by name', async () => {
    const gw = await partitioned()
    const created = await gw.call('POST', '/v1/databases/db/tables/events/partitions', {
      spec: { day: '2024-01-01', region: 'eu' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: '2024-01-01$eu', spec: { day: '2024-01-01', region: 'eu' } })
    const listed = await gw.call('GET', '/v1/databases/db/tables/events/partitions')
    expect(listed.body.partitions.map((p: { name: string }) => p.name)).toEqual(['2024-01-01$eu'])
    expect(
      (await gw.call('DELETE', '/v1/databases/db/tables/events/partitions/2024-01-01%24eu')).status,
    ).toBe(204)
    expect((await gw.call('GET', '/v1/databases/db/tables/events/partitions')).body.partitions).toEqual([])
  })

  it('maps duplicates, missing partitions and bad specs', async () => {
    const gw = await partitioned()
    await gw.call('POST', '/v1/databases/db/tables/events/partitions', { spec: { day: 'd1', region: 'eu' } })
    const dup = await gw.call('POST', '/v1/databases/db/tables/events/partitions', {
      spec: { day: 'd1', region: 'eu' },
    })
    expect([dup.status, dup.body.error.code]).toEqual([409, 'partition_already_exists'])
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/events/partitions', {
          spec: { day: 'd1', region: 'eu' },
          if_not_exists: true,
        })
      ).status,
    ).toBe(201)
    const missing = await gw.call('DELETE', '/v1/databases/db/tables/events/partitions/d2$eu')
    expect([missing.status, missing.body.error.code]).toEqual([404, 'partition_not_found'])
    expect(
      (await gw.call('DELETE', '/v1/databases/db/tables/events/partitions/d2$eu?if_exists=true')).status,
    ).toBe(204)
    expect((await gw.call('DELETE', '/v1/databases/db/tables/events/partitions/d2')).status).toBe(400)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/events/partitions', { spec: { day: 'd1' } })).status,
    ).toBe(400)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/events/partitions', { spec: { day: 1 } })).body.error
        .message,
    ).toMatch(/spec\.day: must be a string/)
  })

  it('refuses partition operations on tables that are not partitioned', async () => {
    const gw = await withDatabase(testGateway())
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 't',
      schema: { columns: [{ name: 'a', type: 'INT' }] },
    })
    const res = await gw.call('GET', '/v1/databases/db/tables/t/partitions')
    expect([res.status, res.body.error.code]).toEqual([400, 'failed_precondition'])
  })
})
