import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { MemoryMetaStore, type MetaStore } from '../metastore/index.js'
import {
  type AclBinding,
  ANY_ACL_FILTER,
  clusterResource,
  databaseResource,
  type OperationType,
  type Resource,
  tableResource,
} from './acl.js'
import { AclStore } from './acl-store.js'
import { Authorizer } from './authorizer.js'
import { userPrincipal, WILDCARD_PRINCIPAL } from './principal.js'

const silent = { warn() {} }
const session = (name: string, clientAddress = '10.0.0.1') => ({
  principal: userPrincipal(name),
  internal: false,
  clientAddress,
})
const admin = session('admin')
const alice = session('alice')
const table = tableResource({ databaseName: 'db', tableName: 't' })
const other = tableResource({ databaseName: 'db2', tableName: 'u' })

function grant(
  resource: Resource,
  operation: Exclude<OperationType, 'ANY'>,
  name = 'alice',
  host = '*',
): AclBinding {
  const principal = name === '*' ? WILDCARD_PRINCIPAL : userPrincipal(name)
  return { resource, entry: { principal, host, operation, permission: 'ALLOW' } }
}

async function authorizer(store: MetaStore = new MemoryMetaStore(), nowMs?: () => number) {
  const a = new Authorizer({
    store: new AclStore(store),
    superUsers: [userPrincipal('admin')],
    refreshIntervalMs: 60_000,
    maxStalenessMs: 10_000,
    logger: silent,
    ...(nowMs === undefined ? {} : { nowMs }),
  })
  await a.reload()
  return a
}

async function created(a: Authorizer, ...bindings: AclBinding[]) {
  const results = await a.addAcls(admin, bindings)
  expect(results.map(r => r.error?.message)).toEqual(bindings.map(() => undefined))
}

describe('Authorizer', () => {
  it('lets super users and internal sessions do everything, and nobody else without an ACL', async () => {
    const a = await authorizer()
    expect(a.isAuthorized(admin, 'DROP', clusterResource())).toBe(true)
    expect(a.isAuthorized({ ...alice, internal: true }, 'WRITE', table)).toBe(true)
    expect(a.isAuthorized(alice, 'DESCRIBE', table)).toBe(false)
    const error = (() => {
      try {
        a.authorize(alice, 'WRITE', table)
      } catch (e) {
        return e as FlussError
      }
    })()
    expect(error?.errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect(error?.message).toBe(
      "Principal User:alice have no authorization to operate WRITE on resource TABLE 'db.t'",
    )
  })

  it('inherits cluster → database → table, and READ/WRITE/... imply DESCRIBE, ALL implies all', async () => {
    const a = await authorizer()
    await created(a, grant(databaseResource('db'), 'READ'))
    expect(a.isAuthorized(alice, 'READ', table)).toBe(true)
    expect(a.isAuthorized(alice, 'DESCRIBE', table)).toBe(true)
    expect(a.isAuthorized(alice, 'WRITE', table)).toBe(false)
    expect(a.isAuthorized(alice, 'READ', other)).toBe(false)
    await created(a, grant(clusterResource(), 'ALL'))
    for (const op of ['READ', 'WRITE', 'CREATE', 'DROP', 'ALTER', 'DESCRIBE'] as const)
      expect(a.isAuthorized(alice, op, other)).toBe(true)
  })

  it('matches wildcard principals, wildcard resources of the same type and the client host', async () => {
    const a = await authorizer()
    await created(
      a,
      grant(tableResource({ databaseName: 'db', tableName: 't' }), 'WRITE', 'bob', '10.0.0.9'),
      grant({ type: 'TABLE', name: '*' }, 'READ', '*'),
    )
    expect(a.isAuthorized(session('bob', '10.0.0.9'), 'WRITE', table)).toBe(true)
    expect(a.isAuthorized(session('bob', '10.0.0.8'), 'WRITE', table)).toBe(false)
    expect(a.isAuthorized(session('carol'), 'READ', other)).toBe(true)
    // A TABLE wildcard says nothing about databases.
    expect(a.isAuthorized(session('carol'), 'DESCRIBE', databaseResource('db2'))).toBe(false)
  })

  it('administers ACLs with ALTER on the resource (a table: its database), per binding', async () => {
    const a = await authorizer()
    const [refused] = await a.addAcls(alice, [grant(table, 'READ', 'bob')])
    expect(refused.error?.errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect(refused.error?.message).toMatch(/operate ALTER on resource DATABASE 'db'/)
    await created(a, grant(databaseResource('db'), 'ALTER'))
    const results = await a.addAcls(alice, [grant(table, 'READ', 'bob'), grant(other, 'READ', 'bob')])
    expect(results.map(r => r.error?.errorName)).toEqual([undefined, 'AUTHORIZATION_EXCEPTION'])
    expect(a.isAuthorized(session('bob'), 'READ', table)).toBe(true)
    const [invalid] = await a.addAcls(admin, [
      { ...grant(table, 'READ'), resource: { type: 'TABLE', name: 'nodot' } },
    ])
    expect(invalid.error?.errorName).toBe('INVALID_REQUEST')
  })

  it('lists only bindings on resources the principal may describe, and drops by filter', async () => {
    const a = await authorizer()
    await created(a, grant(table, 'READ'), grant(other, 'WRITE', 'bob'), grant(table, 'WRITE', 'bob'))
    expect(a.listAcls(admin, ANY_ACL_FILTER)).toHaveLength(3)
    expect(a.listAcls(alice, ANY_ACL_FILTER).map(b => b.resource.name)).toEqual(['db.t', 'db.t'])
    const [dropped] = await a.dropAcls(admin, [{ ...ANY_ACL_FILTER, principal: userPrincipal('bob') }])
    expect(dropped.matches.map(m => m.binding.resource.name).sort()).toEqual(['db.t', 'db2.u'])
    expect(a.listAcls(admin, ANY_ACL_FILTER)).toHaveLength(1)
    const [none] = await a.dropAcls(alice, [ANY_ACL_FILTER])
    expect(none.matches.map(m => m.error?.errorName)).toEqual(['AUTHORIZATION_EXCEPTION'])
    expect(a.listAcls(admin, ANY_ACL_FILTER)).toHaveLength(1)
  })

  it('sees changes made by another server within one refresh, and is bounded in staleness', async () => {
    const store = new MemoryMetaStore()
    let now = 1_000_000
    const here = await authorizer(store, () => now)
    const there = await authorizer(store, () => now)
    await created(there, grant(table, 'READ'))
    expect(here.isAuthorized(alice, 'READ', table)).toBe(false)
    await here.refresh()
    expect(here.isAuthorized(alice, 'READ', table)).toBe(true)
    await there.dropAcls(admin, [ANY_ACL_FILTER])
    await here.refresh()
    expect(here.isAuthorized(alice, 'READ', table)).toBe(false)
    await created(there, grant(table, 'READ'))
    await here.refresh()
    // The store goes away: within the staleness bound the cache answers; after it, only super users.
    store.get = async () => {
      throw new FlussError('STORAGE_EXCEPTION', 'down')
    }
    now += 9_000
    await here.refresh()
    expect(here.isAuthorized(alice, 'READ', table)).toBe(true)
    now += 2_000
    await here.refresh()
    expect(here.isAuthorized(alice, 'READ', table)).toBe(false)
    expect(() => here.authorize(alice, 'READ', table)).toThrow(/could not be refreshed/)
    expect(here.isAuthorized(admin, 'READ', table)).toBe(true)
  })
})
