import { ApiKeys, type ApiName, apiByKey } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingCluster } from '../testing/testing-cluster.js'

/**
 * The APIs a coordinator serves: API_VERSIONS, its own (AdminGateway, CoordinatorGateway) and the
 * read-only admin APIs every Fluss server answers. The APIs described in `ApiKeys` for this role and not
 * served are listed below; adding a handler moves the API from one list to the other.
 */
const SERVED: readonly ApiName[] = [
  'ALTER_TABLE',
  'API_VERSIONS',
  'AUTHENTICATE',
  'CONTROLLED_SHUTDOWN',
  'CREATE_ACLS',
  'CREATE_DATABASE',
  'CREATE_PARTITION',
  'CREATE_TABLE',
  'DATABASE_EXISTS',
  'DROP_ACLS',
  'DROP_DATABASE',
  'DROP_PARTITION',
  'DROP_TABLE',
  'GET_DATABASE_INFO',
  'GET_FILESYSTEM_SECURITY_TOKEN',
  'GET_LAKE_SNAPSHOT',
  'GET_LATEST_KV_SNAPSHOTS',
  'GET_METADATA',
  'GET_TABLE_INFO',
  'GET_TABLE_SCHEMA',
  'LIST_ACLS',
  'LIST_DATABASES',
  'LIST_PARTITION_INFOS',
  'LIST_TABLES',
  'TABLE_EXISTS',
]
const DESCRIBED_NOT_SERVED: readonly ApiName[] = [
  'ADJUST_ISR',
  'COMMIT_KV_SNAPSHOT',
  'COMMIT_LAKE_TABLE_SNAPSHOT',
  'COMMIT_REMOTE_LOG_MANIFEST',
  'DESCRIBE_CLUSTER_CONFIGS',
  'GET_KV_SNAPSHOT_METADATA',
  'LAKE_TIERING_HEARTBEAT',
]

let cluster: TestingCluster | undefined

afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe('the APIs a coordinator serves', () => {
  it('advertises in ApiVersions exactly the APIs it has handlers for, at their versions', async () => {
    cluster = new TestingCluster()
    const client = await cluster.connect(await cluster.startCoordinator('c1'))
    const response = await client.request('API_VERSIONS', {
      clientSoftwareName: 'sluice-test',
      clientSoftwareVersion: '0',
    })
    expect(response.serverType).toBe(1)
    const advertised = response.apiVersions.map(v => {
      const spec = apiByKey(v.apiKey)
      expect(spec, `advertised key ${v.apiKey}`).toBeDefined()
      expect([v.minVersion, v.maxVersion], spec?.name).toEqual([spec?.minVersion, spec?.maxVersion])
      return spec?.name as ApiName
    })
    const forRole = Object.values(ApiKeys)
      .filter(s => s.scope !== 'tablet')
      .map(s => s.name)
    expect([...advertised].sort()).toEqual([...SERVED].sort())
    expect(forRole.filter(n => !advertised.includes(n as ApiName)).sort()).toEqual(
      [...DESCRIBED_NOT_SERVED].sort(),
    )
  })
})
