import { writeIsrAsLeader } from '@sluice/core/control-plane'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CoordinatorServer } from '../server/coordinator-server.js'
import { TEST_SERVER_LEASE_MS, TestingCluster } from '../testing/testing-cluster.js'

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

const shutdown = (serverId: number) =>
  client.request('CONTROLLED_SHUTDOWN', { tabletServerId: serverId, tabletServerEpoch: 0 })

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null, null])
  coordinator = await cluster.startCoordinator('c1')
  client = await cluster.connect(coordinator)
  await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
})

afterEach(() => cluster.close())

describe('controlled shutdown', () => {
  it('moves leaderships to other in-sync replicas, takes the server out of every ISR and stops its replicas', async () => {
    await createTable('t', 3, 3)
    for (const s of cluster.servers.values()) s.notifications.length = 0
    const response = await shutdown(1)
    await coordinator.settle()
    expect(response.remainingLeaderBuckets).toEqual([])
    // Bucket 0 was led by server 1: the next in-sync replica leads, both epochs moved on.
    expect(await state(0)).toEqual({
      leader: 2,
      leaderEpoch: 1,
      isr: [2, 3],
      replicas: [1, 2, 3],
      bucketEpoch: 1,
      coordinatorEpoch: 1,
    })
    // Buckets it followed keep their leader; it only leaves the ISR.
    expect(await state(1)).toMatchObject({ leader: 2, leaderEpoch: 0, isr: [2, 3], bucketEpoch: 1 })
    expect(await state(2)).toMatchObject({ leader: 3, leaderEpoch: 0, isr: [3, 2], bucketEpoch: 1 })
    expect(cluster.server(2).latest().get('0:-:0')).toMatchObject({ leader: 2, leaderEpoch: 1 })
    expect(cluster.server(3).latest().get('0:-:0')).toMatchObject({ leader: 2, leaderEpoch: 1 })
    // The server shutting down is not told to follow; its replicas are stopped (kept on disk).
    expect(cluster.server(1).notifications).toEqual([])
    const stops = cluster.server(1).stops.flatMap(r => r.stopReplicasReq)
    expect(stops.map(s => [s.tableBucket.bucketId, s.leaderEpoch, s.delete]).sort()).toEqual([
      [0, 1, false],
      [1, 0, false],
      [2, 0, false],
    ])
    // It is never elected while it shuts down: server 2 dies and bucket 1 goes to server 3.
    await cluster.advance(TEST_SERVER_LEASE_MS + 1, [1, 3])
    await coordinator.pollMembership()
    await coordinator.settle()
    expect(await state(1)).toMatchObject({ leader: 3, isr: [3] })
  })

  it('reports buckets no other in-sync replica can take over; the server asks again', async () => {
    await createTable('t', 1, 2)
    const { ref, version, leaderAndIsr } = (await cluster.catalog.getBucket({ tableId: 0, bucket: 0 })) ?? {}
    if (ref === undefined || version === undefined || leaderAndIsr === undefined) throw new Error('no bucket')
    // The leader shrank its ISR to itself (the follower lagged).
    await writeIsrAsLeader(cluster.catalog, { ref, version, leaderAndIsr }, [1])
    const first = await shutdown(1)
    expect(first.remainingLeaderBuckets.map(b => [b.tableId, b.bucketId])).toEqual([[0, 0]])
    expect(await state(0)).toMatchObject({ leader: 1, isr: [1], leaderEpoch: 0 })
  })

  it('a bucket whose every replica is shutting down is not reported: the last server stops at once', async () => {
    await createTable('t', 3, 3)
    await createTable('single', 3, 1)
    expect((await shutdown(1)).remainingLeaderBuckets).toEqual([])
    expect((await shutdown(2)).remainingLeaderBuckets).toEqual([])
    // Server 3 now leads every bucket of 't' (ISR [3]) and bucket 2 of 'single' (no other replica).
    expect(await state(0)).toMatchObject({ leader: 3, isr: [3] })
    expect((await shutdown(3)).remainingLeaderBuckets).toEqual([])
    expect(await state(0)).toMatchObject({ leader: 3, isr: [3] })
  })

  it('refuses an unknown server and a standby coordinator refuses the request', async () => {
    const unknown = await shutdown(9).then(
      () => undefined,
      e => e,
    )
    expect((unknown as { errorName?: string }).errorName).toBe('SERVER_NOT_EXIST_EXCEPTION')
    const standby = await cluster.startCoordinator('c2')
    const toStandby = await cluster.connect(standby)
    const refused = await toStandby
      .request('CONTROLLED_SHUTDOWN', { tabletServerId: 1, tabletServerEpoch: 0 })
      .then(
        () => undefined,
        e => e,
      )
    expect((refused as { errorName?: string }).errorName).toBe('INVALID_COORDINATOR_EXCEPTION')
  })
})
