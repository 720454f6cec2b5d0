import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CoordinatorServer } from '../server/coordinator-server.js'
import { TEST_SERVER_LEASE_MS, TestingCluster } from '../testing/testing-cluster.js'
import { tcpProbe } from './server-probe.js'

let cluster: TestingCluster
let coordinator: CoordinatorServer
let client: ClientConnection

async function createTable(tableName: string, buckets: number, rf: number) {
  const tableJson = Buffer.from(
    JSON.stringify({
      version: 1,
      schema: { version: 1, columns: [{ name: 'id', data_type: { type: 'INTEGER' } }] },
      bucket_key: [],
      bucket_count: buckets,
      properties: { 'table.replication.factor': String(rf) },
      custom_properties: {},
    }),
  )
  await client.request('CREATE_TABLE', {
    tablePath: { databaseName: 'db', tableName },
    tableJson,
    ignoreIfExists: false,
  })
  await coordinator.settle()
}

const state = async (bucket: number, tableId = 0) =>
  (await cluster.catalog.getBucket({ tableId, bucket }))?.leaderAndIsr

/** Lets server `id`'s lease run out while the others keep renewing, then lets the coordinator react. */
async function expire(id: number) {
  const others = [...cluster.servers.keys()].filter(s => s !== id)
  await cluster.advance(TEST_SERVER_LEASE_MS + 1, others)
  await coordinator.pollMembership()
  await coordinator.settle()
}

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null, null])
  coordinator = await cluster.startCoordinator('c1')
  client = await cluster.connect(coordinator)
  await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
})

afterEach(() => cluster.close())

describe('membership', () => {
  it('elects a new leader from the ISR when the leader lease expires, bumping the epochs', async () => {
    await createTable('t', 3, 3)
    for (const s of cluster.servers.values()) s.notifications.length = 0
    await expire(1)
    expect(await state(0)).toEqual({
      leader: 2,
      leaderEpoch: 1,
      isr: [2, 3],
      replicas: [1, 2, 3],
      bucketEpoch: 1,
      coordinatorEpoch: 1,
    })
    // A follower on the dead server only leaves the ISR.
    expect(await state(1)).toMatchObject({ leader: 2, leaderEpoch: 0, isr: [2, 3], bucketEpoch: 1 })
    expect(cluster.server(2).latest().get('0:-:0')).toEqual({
      leader: 2,
      leaderEpoch: 1,
      isr: [2, 3],
      bucketEpoch: 1,
    })
    expect(cluster.server(3).latest().get('0:-:0')?.leader).toBe(2)
    expect(cluster.server(1).notifications).toEqual([])
    const metadata = await client.request('GET_METADATA', {
      tablePath: [{ databaseName: 'db', tableName: 't' }],
    })
    expect(metadata.tabletServers.map(s => s.nodeId)).toEqual([2, 3])
    expect(metadata.tableMetadata[0].bucketMetadata.map(b => b.leaderId)).toEqual([2, 2, 3])
  })

  it('leaves a bucket without leader when no ISR member is live, and re-elects when one returns', async () => {
    await createTable('t', 1, 1)
    await expire(1)
    expect(await state(0)).toMatchObject({ leader: null, isr: [1], leaderEpoch: 1 })
    const metadata = await client.request('GET_METADATA', {
      tablePath: [{ databaseName: 'db', tableName: 't' }],
    })
    expect(metadata.tableMetadata[0].bucketMetadata[0].leaderId).toBeNull()
    cluster.server(1).notifications.length = 0
    await cluster.server(1).register(cluster.catalog, TEST_SERVER_LEASE_MS, 'restarted')
    await coordinator.pollMembership()
    await coordinator.settle()
    expect(await state(0)).toMatchObject({ leader: 1, isr: [1], leaderEpoch: 2, bucketEpoch: 2 })
    expect(cluster.server(1).latest().get('0:-:0')).toEqual({
      leader: 1,
      leaderEpoch: 2,
      isr: [1],
      bucketEpoch: 2,
    })
  })

  it('tells a returning server the current state of every bucket it hosts', async () => {
    await createTable('t', 3, 2)
    await expire(2)
    cluster.server(2).notifications.length = 0
    await cluster.server(2).register(cluster.catalog, TEST_SERVER_LEASE_MS, 'second-life')
    await coordinator.pollMembership()
    await coordinator.settle()
    const told = cluster.server(2).latest()
    expect([...told.keys()].sort()).toEqual(['0:-:0', '0:-:1'])
    expect(told.get('0:-:1')).toEqual({ leader: 3, leaderEpoch: 1, isr: [3], bucketEpoch: 1 })
  })

  it('treats a restart within one poll (new incarnation) as a death and a return', async () => {
    await createTable('t', 3, 2)
    await cluster.server(1).register(cluster.catalog, TEST_SERVER_LEASE_MS, 'quick-restart')
    await coordinator.pollMembership()
    await coordinator.settle()
    // Bucket 0 was led by server 1: leadership moved to the other in-sync replica.
    expect(await state(0)).toMatchObject({ leader: 2, leaderEpoch: 1, isr: [2] })
    expect(cluster.server(1).latest().get('0:-:0')?.leader).toBe(2)
  })

  it('re-announces every bucket to every live server after a coordinator change', async () => {
    await createTable('t', 3, 2)
    const c2 = await cluster.startCoordinator('c2')
    for (const s of cluster.servers.values()) s.notifications.length = 0
    await coordinator.stop()
    await c2.electionTick()
    await c2.settle()
    for (const s of cluster.servers.values()) {
      expect(s.latest().size).toBe(2)
      expect(s.notifications.every(n => n.coordinatorEpoch === 2)).toBe(true)
    }
  })

  it('retries a notification with backoff until the server takes it', async () => {
    cluster.server(1).failNext = 2
    await createTable('t', 1, 1)
    expect(cluster.server(1).notifications).toEqual([])
    expect(coordinator.controller.notifier.pending(1).leaderAndIsr).toBe(1)
    await cluster.time.advance(200) // first retry fails too; the next waits 400 ms
    await coordinator.settle()
    expect(cluster.server(1).notifications).toEqual([])
    await cluster.time.advance(400)
    await coordinator.settle()
    expect(cluster.server(1).latest().get('0:-:0')?.leader).toBe(1)
    expect(coordinator.controller.notifier.pending(1).leaderAndIsr).toBe(0)
  })

  it('treats a server whose listener refuses connections as dead before its lease runs out', async () => {
    await coordinator.stop()
    const probing = await cluster.startCoordinator('c2', { probe: tcpProbe(1000) })
    await cluster.advance(20_000)
    await probing.electionTick()
    await probing.settle()
    const toProbing = await cluster.connect(probing)
    await toProbing.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 't' },
      tableJson: Buffer.from(
        JSON.stringify({
          version: 1,
          schema: { version: 1, columns: [{ name: 'id', data_type: { type: 'INTEGER' } }] },
          bucket_key: [],
          bucket_count: 1,
          properties: { 'table.replication.factor': '3' },
          custom_properties: {},
        }),
      ),
      ignoreIfExists: false,
    })
    await probing.settle()
    expect((await state(0))?.leader).toBe(1)
    // Server 1's process is gone (its port refuses connections); its lease is still valid.
    await cluster.server(1).close()
    await probing.pollMembership()
    await probing.settle()
    expect(await state(0)).toMatchObject({ leader: 2, leaderEpoch: 1, isr: [2, 3] })
    expect(probing.controller.membership.liveIds()).toEqual(new Set([2, 3]))
    // A paused process still accepts connections: only its lease decides.
    expect(await tcpProbe(1000)('127.0.0.1', cluster.server(2).port)).toBe('alive')
  })
})
