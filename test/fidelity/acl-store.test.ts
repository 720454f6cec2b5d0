import type { MetaStore } from '@sluice/core/metastore'
import {
  type AclBinding,
  AclStore,
  ANY_ACL_FILTER,
  Authorizer,
  bindingId,
  tableResource,
  userPrincipal,
} from '@sluice/core/security'
import { describe, expect, it } from 'vitest'
import { onEveryDynamo } from './dynamo-emulators.js'

/** ACLs on real DynamoDB emulators: one item per binding, concurrent writers, cache refresh. */

const binding = (table: number, user: number): AclBinding => ({
  resource: tableResource({ databaseName: 'db', tableName: `t${table}` }),
  entry: { principal: userPrincipal(`u${user}`), host: '*', operation: 'READ', permission: 'ALLOW' },
})

function aclCases(name: string, open: () => MetaStore) {
  describe(name, () => {
    it('keeps every binding written by concurrent writers, once, and other servers see them', async () => {
      const stores = Array.from({ length: 4 }, open)
      const writers = stores.map(s => new AclStore(s))
      // Writer w creates bindings (t, u) for t in 0..9 and u in {w, w+1}: neighbours overlap.
      const outcomes = await Promise.all(
        writers.map((w, i) =>
          Promise.all(
            Array.from({ length: 10 }, (_, t) => [binding(t, i), binding(t, i + 1)])
              .flat()
              .map(b => w.create(b)),
          ),
        ),
      )
      const loaded = await new AclStore(open()).load()
      const expected = new Set(
        Array.from({ length: 10 }, (_, t) => [0, 1, 2, 3, 4].map(u => bindingId(binding(t, u)))).flat(),
      )
      expect(new Set(loaded.bindings.map(bindingId))).toEqual(expected)
      expect(loaded.bindings).toHaveLength(expected.size)
      // Exactly one writer created each shared binding.
      expect(outcomes.flat().filter(created => created)).toHaveLength(expected.size)
      expect(loaded.version).toBeGreaterThan(0)
      const reader = new Authorizer({
        store: new AclStore(open()),
        superUsers: [],
        refreshIntervalMs: 60_000,
        maxStalenessMs: 60_000,
        logger: { warn() {} },
      })
      await reader.reload()
      const session = { principal: userPrincipal('u4'), internal: false, clientAddress: '10.0.0.1' }
      expect(reader.isAuthorized(session, 'READ', binding(9, 4).resource)).toBe(true)
      // Concurrent deletes of the same bindings: each removed once.
      const deleted = await Promise.all(writers.map(w => w.delete(binding(0, 2))))
      expect(deleted.filter(d => d)).toHaveLength(1)
      await reader.refresh()
      expect(reader.listAcls({ ...session, principal: userPrincipal('x') }, ANY_ACL_FILTER)).toEqual([])
      expect(
        reader.isAuthorized({ ...session, principal: userPrincipal('u2') }, 'READ', binding(0, 2).resource),
      ).toBe(false)
      await Promise.all(stores.map(s => s.close()))
    })
  })
}

await onEveryDynamo('sluice-acl', (emulator, open) => aclCases(`AclStore on ${emulator}`, open))
