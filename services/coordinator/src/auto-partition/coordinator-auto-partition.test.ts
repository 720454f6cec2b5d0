import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CoordinatorServer } from '../server/coordinator-server.js'
import { testCoordinatorConfig, testTableJson } from '../testing/coordinator-fixtures.js'
import { TestingCluster } from '../testing/testing-cluster.js'

let cluster: TestingCluster
let coordinator: CoordinatorServer
let client: ClientConnection

const HOUR_MS = 3_600_000
/** Hourly checks; slow background loops, since the tests move the clock by whole hours. */
const config = () =>
  testCoordinatorConfig({
    'auto-partition.check.interval': '1h',
    'sluice.coordinator.membership-poll-interval': '1min',
    'sluice.coordinator.lease-renew-interval': '1min',
    'sluice.coordinator.lease-duration': '5min',
  })

const tableJson = (properties: Record<string, string>) => testTableJson({ partitioned: true, properties })

const partitions = async () => (await cluster.catalog.listPartitions(0)).map(p => p.partitionName).sort()

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null, null])
  coordinator = await cluster.startCoordinator('c1', {
    config: config(),
  })
  await coordinator.settle()
  client = await cluster.connect(coordinator)
  await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
})

afterEach(() => cluster.close())

describe('auto-partitioning in the coordinator', () => {
  it('creates the partitions of an auto-partitioned table with CREATE TABLE, then keeps them current', async () => {
    // TestingTime starts at 2023-11-14T22:13:20Z.
    await client.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 'daily' },
      tableJson: tableJson({
        'table.auto-partition.enabled': 'true',
        'table.auto-partition.time-unit': 'DAY',
        'table.auto-partition.time-zone': 'UTC',
        'table.auto-partition.num-precreate': '2',
        'table.auto-partition.num-retention': '1',
        'table.replication.factor': '1',
      }),
      ignoreIfExists: false,
    })
    expect(await partitions()).toEqual(['20231114', '20231115'])
    for (let h = 0; h < 26; h++) {
      await cluster.advance(HOUR_MS)
      await coordinator.settle()
      await coordinator.autoPartitions.checkNow()
    }
    expect(await partitions()).toEqual(['20231115', '20231116', '20231117'])
  })

  it('checks a table again after ALTER TABLE changes its auto-partition options', async () => {
    await client.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 'daily' },
      tableJson: tableJson({
        'table.auto-partition.enabled': 'true',
        'table.auto-partition.time-unit': 'DAY',
        'table.auto-partition.time-zone': 'UTC',
        'table.auto-partition.num-precreate': '1',
        'table.replication.factor': '1',
      }),
      ignoreIfExists: false,
    })
    expect(await partitions()).toEqual(['20231114'])
    await client.request('ALTER_TABLE', {
      tablePath: { databaseName: 'db', tableName: 'daily' },
      ignoreIfNotExists: false,
      configChanges: [{ configKey: 'table.auto-partition.num-precreate', configValue: '3', opType: 0 }],
    })
    expect(await partitions()).toEqual(['20231114', '20231115', '20231116'])
  })

  it('a standby creates nothing; the coordinator that takes over keeps the partitions current', async () => {
    const standby = await cluster.startCoordinator('c2', {
      config: config(),
    })
    await client.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 'daily' },
      tableJson: tableJson({
        'table.auto-partition.enabled': 'true',
        'table.auto-partition.time-unit': 'DAY',
        'table.auto-partition.time-zone': 'UTC',
        'table.auto-partition.num-precreate': '1',
        'table.replication.factor': '1',
      }),
      ignoreIfExists: false,
    })
    expect(await standby.autoPartitions.checkNow()).toEqual([])
    await coordinator.stop()
    await standby.electionTick()
    await standby.settle()
    expect(standby.isActive).toBe(true)
    for (let h = 0; h < 26; h++) {
      await cluster.advance(HOUR_MS)
      await standby.settle()
    }
    await standby.autoPartitions.checkNow()
    expect(await partitions()).toEqual(['20231114', '20231115', '20231116'])
  })
})
