import { Configuration } from '@sluice/core/config'
import { MemoryMetaStore } from '@sluice/core/metastore'
import {
  AclStore,
  Authorizer,
  allowUser,
  databaseResource,
  tableResource,
  userPrincipal,
} from '@sluice/core/security'
import { describe, expect, it } from 'vitest'
import { createApp } from '../app.js'
import { MemoryGatewayBackend } from '../testing/memory-backend.js'
import { send } from '../testing/test-app.js'
import { SILENT_LOGGER } from '../types.js'
import { authorizingBackend } from './authorizing-backend.js'

const allow = allowUser

async function gateway() {
  const authorizer = new Authorizer({
    store: new AclStore(new MemoryMetaStore()),
    superUsers: [userPrincipal('ops')],
    refreshIntervalMs: 60_000,
    maxStalenessMs: 60_000,
    logger: { warn() {} },
  })
  await authorizer.reload()
  const app = createApp({
    backend: authorizingBackend(new MemoryGatewayBackend(), authorizer),
    config: Configuration.load({
      'gateway.security.authentication': 'token',
      'gateway.security.tokens': 'ops-token:ops,alice-token:alice',
    }),
    logger: SILENT_LOGGER,
  })
  const as = (token: string) => (method: string, path: string, body?: unknown) =>
    send(app, method, path, body, { authorization: `Bearer ${token}` })
  return { authorizer, ops: as('ops-token'), alice: as('alice-token') }
}

describe('the gateway behind the cluster ACLs', () => {
  it('checks each caller with the operation of the Fluss API a route amounts to, and filters listings', async () => {
    const { authorizer, ops, alice } = await gateway()
    expect((await ops('POST', '/v1/databases', { name: 'db' })).status).toBe(201)
    expect((await ops('POST', '/v1/databases', { name: 'other' })).status).toBe(201)
    for (const name of ['t', 'u']) {
      const made = await ops('POST', '/v1/databases/db/tables', {
        name,
        schema: { columns: [{ name: 'a', type: 'INT' }] },
      })
      expect(made.status).toBe(201)
    }
    const refused = await alice('POST', '/v1/databases', { name: 'mine' })
    expect([refused.status, refused.body.error.code]).toEqual([403, 'unauthorized'])
    expect(refused.body.error.message).toMatch(
      /User:alice have no authorization to operate CREATE on resource CLUSTER/,
    )

    await authorizer.addAcls({ principal: userPrincipal('ops'), internal: false, clientAddress: '*' }, [
      allow(tableResource({ databaseName: 'db', tableName: 't' }), 'READ', 'alice'),
    ])
    expect((await alice('GET', '/v1/databases/db/tables')).body.tables).toEqual(['t'])
    expect((await alice('GET', '/v1/databases')).body.databases).toEqual([])
    expect((await alice('GET', '/v1/databases/db/tables/t')).status).toBe(200)
    expect((await alice('GET', '/v1/databases/db/tables/u')).status).toBe(403)
    const write = await alice('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 1 }] })
    expect([write.status, write.body.error.message]).toEqual([
      403,
      expect.stringMatching(/operate WRITE on resource TABLE 'db.t'/),
    ])
    expect((await ops('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 1 }] })).status).toBe(200)

    await authorizer.addAcls({ principal: userPrincipal('ops'), internal: false, clientAddress: '*' }, [
      allow(databaseResource('db'), 'WRITE', 'alice'),
    ])
    expect((await alice('POST', '/v1/databases/db/tables/t/append', { rows: [{ a: 2 }] })).status).toBe(200)
  })
})
