import type { FlussError } from '@sluice/core/errors'
import { ClientConnection } from '@sluice/core/rpc'
import {
  type AclBinding,
  ANY_ACL_FILTER,
  allowUser,
  databaseResource,
  plainServerJaas,
  tableResource,
  toPbAclFilter,
  toPbAclInfo,
  userPrincipal,
} from '@sluice/core/security'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CoordinatorServer } from '../server/coordinator-server.js'
import { testCoordinatorConfig } from '../testing/coordinator-fixtures.js'
import { TestingCluster } from '../testing/testing-cluster.js'

let cluster: TestingCluster
let coordinator: CoordinatorServer
const connections: ClientConnection[] = []

const PASSWORDS = { admin: 'admin-pw', alice: 'alice-pw', bob: 'bob-pw' } as const
type User = keyof typeof PASSWORDS

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers(['az1', 'az2'])
  const config = testCoordinatorConfig({
    'bind.listeners': 'CLIENT://127.0.0.1:0,INTERNAL://127.0.0.1:0',
    'internal.listener.name': 'INTERNAL',
    'security.protocol.map': 'CLIENT:SASL,INTERNAL:SASL',
    'security.sasl.plain.jaas.config': plainServerJaas(PASSWORDS),
    'security.sasl.listener.name.internal.plain.jaas.config': plainServerJaas(
      { server: 'server-pw' },
      { username: 'server', password: 'server-pw' },
    ),
    'sluice.security.authentication.failure-delay': '0ms',
    'authorizer.enabled': true,
    'super.users': 'User:admin',
  })
  coordinator = await cluster.startCoordinator('c1', { config })
})

afterEach(async () => {
  for (const c of connections.splice(0)) c.close()
  await cluster.close()
})

async function as(user: User | 'server', listener = 'CLIENT') {
  const port = coordinator.boundEndpoints.find(e => e.listenerName === listener)?.port ?? 0
  const password = user === 'server' ? 'server-pw' : PASSWORDS[user]
  const c = await ClientConnection.connect({
    host: '127.0.0.1',
    port,
    security: { sasl: { mechanism: 'PLAIN', username: user, password } },
  })
  connections.push(c)
  return c
}

/** What a call failed with (a resolved call yields its answer, which the expectations then reject). */
const failure = (p: Promise<unknown>) => p.catch((e: unknown) => e as FlussError) as Promise<FlussError>

const allow = allowUser

async function grant(...bindings: AclBinding[]) {
  const admin = await as('admin')
  const res = await admin.request('CREATE_ACLS', { acl: bindings.map(toPbAclInfo) })
  expect(res.aclRes.map(r => r.errorCode ?? 0)).toEqual(bindings.map(() => 0))
}

describe('coordinator with authorizer.enabled', () => {
  it('refuses what an ACL does not allow, naming the resource, and writes nothing', async () => {
    const alice = await as('alice')
    const e = await failure(alice.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false }))
    expect(e.errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect(e.message).toMatch(
      /Principal User:alice have no authorization to operate CREATE on resource CLUSTER 'fluss-cluster'/,
    )
    expect(await cluster.catalog.databaseExists('db')).toBe(false)
  })

  it('lists and answers exists only for what the principal may describe; CREATE on a database allows tables in it', async () => {
    const admin = await as('admin')
    for (const db of ['db1', 'db2'])
      await admin.request('CREATE_DATABASE', { databaseName: db, ignoreIfExists: false })
    await grant(allow(databaseResource('db1'), 'CREATE', 'alice'))
    const alice = await as('alice')
    expect((await alice.request('LIST_DATABASES', {})).databaseName).toEqual(['db1'])
    expect((await alice.request('DATABASE_EXISTS', { databaseName: 'db2' })).exists).toBe(false)
    expect((await alice.request('DATABASE_EXISTS', { databaseName: 'db1' })).exists).toBe(true)
    const drop = await failure(
      alice.request('DROP_DATABASE', { databaseName: 'db1', ignoreIfNotExists: false, cascade: true }),
    )
    expect(drop.message).toMatch(/operate DROP on resource DATABASE 'db1'/)
    expect(await cluster.catalog.databaseExists('db1')).toBe(true)
  })

  it('serves CREATE/LIST/DROP_ACLS with per-binding errors and list filtering', async () => {
    const admin = await as('admin')
    await admin.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    const alice = await as('alice')
    const t = tableResource({ databaseName: 'db', tableName: 't' })
    const refused = await alice.request('CREATE_ACLS', { acl: [toPbAclInfo(allow(t, 'READ', 'bob'))] })
    expect(refused.aclRes[0]).toMatchObject({ errorCode: 48 })
    expect(refused.aclRes[0].errorMessage).toMatch(/ALTER on resource DATABASE 'db'/)
    await grant(allow(databaseResource('db'), 'ALTER', 'alice'))
    const ok = await alice.request('CREATE_ACLS', { acl: [toPbAclInfo(allow(t, 'READ', 'bob'))] })
    expect(ok.aclRes[0].errorCode ?? 0).toBe(0)
    expect((await admin.request('LIST_ACLS', { aclFilter: toPbAclFilter(ANY_ACL_FILTER) })).acl).toHaveLength(
      2,
    )
    const bob = await as('bob')
    const seen = await bob.request('LIST_ACLS', { aclFilter: toPbAclFilter(ANY_ACL_FILTER) })
    expect(seen.acl.map(a => a.resourceName)).toEqual(['db.t'])
    const dropped = await admin.request('DROP_ACLS', {
      aclFilter: [toPbAclFilter({ ...ANY_ACL_FILTER, principal: userPrincipal('bob') })],
    })
    expect(dropped.filterResults[0].matchingAcls.map(m => m.acl.principalName)).toEqual(['bob'])
    expect((await bob.request('LIST_ACLS', { aclFilter: toPbAclFilter(ANY_ACL_FILTER) })).acl).toEqual([])
  })

  it('serves server-to-server APIs to the internal listener and super users only', async () => {
    const alice = await as('alice')
    const req = { tabletServerId: 1, tabletServerEpoch: 0 }
    const e = await failure(alice.request('CONTROLLED_SHUTDOWN', req))
    expect(e.errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect(e.message).toMatch(/server-to-server API/)
    const server = await as('server', 'INTERNAL')
    const internal = await server.request('CONTROLLED_SHUTDOWN', req).catch(x => x as FlussError)
    expect((internal as FlussError).errorName).not.toBe('AUTHORIZATION_EXCEPTION')
  })

  it('refuses client credentials on the internal listener', async () => {
    const e = await failure(as('alice', 'INTERNAL'))
    expect(e.errorName).toBe('AUTHENTICATE_EXCEPTION')
  })
})

describe('coordinator without an authorizer', () => {
  it('answers ACL requests with SECURITY_DISABLED_EXCEPTION', async () => {
    const plain = await cluster.startCoordinator('c2', { config: testCoordinatorConfig() })
    const c = await ClientConnection.connect({ host: '127.0.0.1', port: plain.boundEndpoints[0].port })
    connections.push(c)
    const e = await failure(c.request('LIST_ACLS', { aclFilter: toPbAclFilter(ANY_ACL_FILTER) }))
    expect(e.errorName).toBe('SECURITY_DISABLED_EXCEPTION')
  })
})
