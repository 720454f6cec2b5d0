import { ApiKeys, type ApiName, apiByKey } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { TestCluster } from '../testing/cluster.js'

/**
 * The APIs a tablet server serves: API_VERSIONS, its own (TabletServerGateway) and the read-only
 * admin APIs every Fluss server answers. The APIs described in `ApiKeys` for this role and not
 * served are listed below; adding a handler moves the API from one list to the other.
 */
const SERVED: readonly ApiName[] = [
  'API_VERSIONS',
  'AUTHENTICATE',
  'DATABASE_EXISTS',
  'FETCH_LOG',
  'GET_DATABASE_INFO',
  'GET_FILESYSTEM_SECURITY_TOKEN',
  'GET_LAKE_SNAPSHOT',
  'GET_LATEST_KV_SNAPSHOTS',
  'GET_METADATA',
  'GET_TABLE_INFO',
  'GET_TABLE_SCHEMA',
  'GET_TABLE_STATS',
  'INIT_WRITER',
  'LIMIT_SCAN',
  'LIST_ACLS',
  'LIST_DATABASES',
  'LIST_OFFSETS',
  'LIST_PARTITION_INFOS',
  'LIST_TABLES',
  'LOOKUP',
  'NOTIFY_LEADER_AND_ISR',
  'PREFIX_LOOKUP',
  'PRODUCE_LOG',
  'PUT_KV',
  'STOP_REPLICA',
  'TABLE_EXISTS',
  'UPDATE_METADATA',
]
const DESCRIBED_NOT_SERVED: readonly ApiName[] = [
  'DESCRIBE_CLUSTER_CONFIGS',
  'GET_KV_SNAPSHOT_METADATA',
  'NOTIFY_KV_SNAPSHOT_OFFSET',
  'NOTIFY_LAKE_TABLE_OFFSET',
  'NOTIFY_REMOTE_LOG_OFFSETS',
]

let cluster: TestCluster | undefined

afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe('the APIs a tablet server serves', () => {
  it('advertises in ApiVersions exactly the APIs it has handlers for, at their versions', async () => {
    cluster = new TestCluster()
    const server = await cluster.startServer(1)
    const client = await cluster.connect(server)
    const response = await client.request('API_VERSIONS', {
      clientSoftwareName: 'sluice-test',
      clientSoftwareVersion: '0',
    })
    expect(response.serverType).toBe(2)
    const advertised = response.apiVersions.map(v => {
      const spec = apiByKey(v.apiKey)
      expect(spec, `advertised key ${v.apiKey}`).toBeDefined()
      expect([v.minVersion, v.maxVersion], spec?.name).toEqual([spec?.minVersion, spec?.maxVersion])
      return spec?.name as ApiName
    })
    const forRole = Object.values(ApiKeys)
      .filter(s => s.scope !== 'coordinator')
      .map(s => s.name)
    expect([...advertised].sort()).toEqual([...SERVED].sort())
    expect(forRole.filter(n => !advertised.includes(n as ApiName)).sort()).toEqual(
      [...DESCRIBED_NOT_SERVED].sort(),
    )
  })
})
