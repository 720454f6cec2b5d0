import type { FlussError } from '@sluice/core/errors'
import { afterEach, describe, expect, it } from 'vitest'
import { testTableJson } from '../testing/coordinator-fixtures.js'
import { TestingCluster } from '../testing/testing-cluster.js'

let cluster: TestingCluster

const tableJson = (rf: number, partitioned = false) =>
  testTableJson({ partitioned, buckets: 2, properties: { 'table.replication.factor': String(rf) } })

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected an error response')
    },
    e => e as FlussError,
  )

afterEach(() => cluster.close())

describe('CREATE TABLE while tablet servers are still joining', () => {
  it('is retriable (NOT_ENOUGH_REPLICAS_EXCEPTION) until the coordinator sees the servers, then succeeds', async () => {
    cluster = new TestingCluster()
    const coordinator = await cluster.startCoordinator('c1')
    const client = await cluster.connect(coordinator)
    await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    const create = (tableName: string, rf: number, partitioned = false) =>
      client.request('CREATE_TABLE', {
        tablePath: { databaseName: 'db', tableName },
        tableJson: tableJson(rf, partitioned),
        ignoreIfExists: false,
      })

    const none = await failure(create('t', 1))
    expect([none.errorName, none.retriable, none.message]).toEqual([
      'NOT_ENOUGH_REPLICAS_EXCEPTION',
      true,
      'Replication factor: 1 larger than available tablet servers: 0. (no tablet server has started yet; retry shortly)',
    ])

    // Registered, but the membership poll has not seen them yet.
    await cluster.addTabletServers([null, null, null])
    const joining = await failure(create('t', 3))
    expect([joining.errorName, joining.retriable]).toEqual(['NOT_ENOUGH_REPLICAS_EXCEPTION', true])
    expect(joining.message).toContain('3 more tablet server(s) registered and not yet available')

    await coordinator.pollMembership()
    await create('t', 3)
    // More replicas than registered servers stays a permanent error.
    const tooMany = await failure(create('u', 4))
    expect([tooMany.errorName, tooMany.retriable]).toEqual(['INVALID_REPLICATION_FACTOR', false])
  })

  it('a partition created while servers join is retriable too', async () => {
    cluster = new TestingCluster()
    await cluster.addTabletServers([null])
    const coordinator = await cluster.startCoordinator('c1')
    const client = await cluster.connect(coordinator)
    await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    const tablePath = { databaseName: 'db', tableName: 'p' }
    await client.request('CREATE_TABLE', { tablePath, tableJson: tableJson(2, true), ignoreIfExists: false })
    const partition = () =>
      client.request('CREATE_PARTITION', {
        tablePath,
        partitionSpec: { partitionKeyValues: [{ key: 'dt', value: '2024' }] },
        ignoreIfNotExists: false,
      })
    expect((await failure(partition())).errorName).toBe('INVALID_REPLICATION_FACTOR')
    await cluster.addTabletServers([null])
    expect((await failure(partition())).errorName).toBe('NOT_ENOUGH_REPLICAS_EXCEPTION')
    await coordinator.pollMembership()
    await partition()
  })
})
