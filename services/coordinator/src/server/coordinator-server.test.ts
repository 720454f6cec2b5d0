import { resolvedPartitionSpec } from '@sluice/core/metadata'
import { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { autoPartitionOps } from '../auto-partition/auto-partition-ops.js'
import { testCoordinatorConfig } from '../testing/coordinator-fixtures.js'
import { TestingCluster } from '../testing/testing-cluster.js'

let cluster: TestingCluster

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers(['az1', 'az2'])
})

afterEach(() => cluster.close())

describe('CoordinatorServer', () => {
  it('publishes the advertised endpoints, per listener', async () => {
    const config = testCoordinatorConfig({
      'bind.listeners': 'FLUSS://127.0.0.1:0,CLIENT://127.0.0.1:0',
      'advertised.listeners': 'FLUSS://10.1.1.1:9123,CLIENT://coordinator.example.com:19123',
    })
    const coordinator = await cluster.startCoordinator('c1', { config })
    const lease = await cluster.catalog.activeCoordinator()
    expect([lease?.host, lease?.port]).toEqual(['10.1.1.1', 9123])
    const client = coordinator.boundEndpoints.find(e => e.listenerName === 'CLIENT')
    const connection = await ClientConnection.connect({ host: '127.0.0.1', port: client?.port ?? 0 })
    const metadata = await connection.request('GET_METADATA', {})
    connection.close()
    expect([metadata.coordinatorServer?.host, metadata.coordinatorServer?.port]).toEqual([
      'coordinator.example.com',
      19123,
    ])
  })

  it('answers metadata with the endpoints of the listener a request came in on', async () => {
    const config = testCoordinatorConfig({ 'bind.listeners': 'FLUSS://127.0.0.1:0,CLIENT://127.0.0.1:0' })
    const coordinator = await cluster.startCoordinator('c1', { config })
    for (const endpoint of coordinator.endpoints) {
      const connection = await ClientConnection.connect({ host: '127.0.0.1', port: endpoint.port })
      const metadata = await connection.request('GET_METADATA', {})
      connection.close()
      expect(metadata.coordinatorServer?.port).toBe(endpoint.port)
      expect(metadata.tabletServers.map(s => s.rack)).toEqual(['az1', 'az2'])
    }
  })

  it('offers partition operations for an auto-partition manager', async () => {
    const coordinator = await cluster.startCoordinator('c1')
    const client = await cluster.connect(coordinator)
    await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    const tableJson = Buffer.from(
      JSON.stringify({
        version: 1,
        schema: { version: 1, columns: [{ name: 'dt', data_type: { type: 'STRING' } }] },
        partition_key: ['dt'],
        bucket_key: [],
        bucket_count: 1,
        properties: { 'table.auto-partition.enabled': 'true', 'table.auto-partition.time-unit': 'DAY' },
        custom_properties: {},
      }),
    )
    await client.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 'p' },
      tableJson,
      ignoreIfExists: false,
    })
    const ops = autoPartitionOps(coordinator)
    const [table] = await ops.listAutoPartitionedTables()
    expect(table.tablePath).toEqual({ databaseName: 'db', tableName: 'p' })
    // CREATE TABLE already made today's partition and the pre-created ones (machine time zone).
    const created = await ops.listPartitions(table.tableId)
    expect(created.length).toBeGreaterThan(0)
    await ops.createPartition(table, resolvedPartitionSpec(['dt'], ['20250101']), false)
    await ops.createPartition(table, resolvedPartitionSpec(['dt'], ['20250101']), true)
    expect(await ops.listPartitions(table.tableId)).toEqual([...created, '20250101'])
    await ops.dropPartition(table, '20250101')
    expect(await ops.listPartitions(table.tableId)).toEqual(created)
  })
})
