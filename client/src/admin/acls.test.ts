import { FlussError } from '@sluice/core/errors'
import {
  type AclBinding,
  type AclBindingFilter,
  allowUser,
  fromPbAclFilter,
  tableResource,
  toPbAclInfo,
} from '@sluice/core/security'
import { describe, expect, it } from 'vitest'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { AclAdmin } from './acls.js'

const path = { databaseName: 'shop', tableName: 'orders' }
const read = allowUser(tableResource(path), 'READ', 'alice')
const write = allowUser(tableResource(path), 'WRITE', 'alice')

/** An AclAdmin over a coordinator that records requests and answers `response`. */
function adminAnswering(response: unknown) {
  const sent: { api: string; request: unknown }[] = []
  const metadata = {
    requestCoordinator: async (api: string, request: unknown) => {
      sent.push({ api, request })
      return response
    },
  } as unknown as MetadataUpdater
  return { admin: new AclAdmin(metadata), sent }
}

describe('AclAdmin.dropAcls', () => {
  it('sends every filter to the coordinator and returns what each matched, with per-binding errors', async () => {
    const byPrincipal: AclBindingFilter = {
      resourceType: 'TABLE',
      resourceName: 'shop.orders',
      principal: { type: 'User', name: 'alice' },
      operation: 'ANY',
      permission: 'ANY',
    }
    const byHost: AclBindingFilter = {
      resourceType: 'ANY',
      host: '10.0.0.1',
      operation: 'READ',
      permission: 'ALLOW',
    }
    const { admin, sent } = adminAnswering({
      filterResults: [
        {
          matchingAcls: [
            { acl: toPbAclInfo(read) },
            { acl: toPbAclInfo(write), errorCode: 48, errorMessage: 'not allowed to drop it' },
          ],
        },
        { matchingAcls: [] },
      ],
    })
    const results = await admin.dropAcls([byPrincipal, byHost])
    expect(sent).toHaveLength(1)
    expect(sent[0].api).toBe('DROP_ACLS')
    const filters = (sent[0].request as { aclFilter: Parameters<typeof fromPbAclFilter>[0][] }).aclFilter
    expect(filters.map(fromPbAclFilter)).toEqual([byPrincipal, byHost])
    expect(results).toHaveLength(2)
    expect(results[0].matches.map(m => m.binding)).toEqual<AclBinding[]>([read, write])
    expect(results[0].matches[0].error).toBeUndefined()
    expect(results[0].matches[1].error).toBeInstanceOf(FlussError)
    expect(results[0].matches[1].error?.errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect(results[0].matches[1].error?.message).toBe('not allowed to drop it')
    expect(results[1].matches).toEqual([])
  })

  it('throws the error of a filter the coordinator refused as a whole', async () => {
    const { admin } = adminAnswering({
      filterResults: [
        { matchingAcls: [], errorCode: 48, errorMessage: 'User:bob may not ALTER the cluster' },
      ],
    })
    const e = await admin
      .dropAcls([{ resourceType: 'ANY', operation: 'ANY', permission: 'ANY' }])
      .catch((x: unknown) => x)
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect((e as FlussError).message).toBe('User:bob may not ALTER the cluster')
  })
})
