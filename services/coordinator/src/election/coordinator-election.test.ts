import type { FlussError } from '@sluice/core/errors'
import { coordinatorKey, tableItemsPk } from '@sluice/core/metastore'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TestingTime } from '../testing/coordinator-fixtures.js'
import { TestingCluster } from '../testing/testing-cluster.js'

/** sluice.coordinator.lease-duration default. */
const LEASE_MS = 15_000

let cluster: TestingCluster

async function failure(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected an error response')
    },
    e => e as FlussError,
  )
}

const createTable = (tableName: string, rf = 1) => ({
  tablePath: { databaseName: 'db', tableName },
  tableJson: Buffer.from(
    JSON.stringify({
      version: 1,
      schema: { version: 1, columns: [{ name: 'id', data_type: { type: 'INTEGER' } }] },
      bucket_key: [],
      bucket_count: 3,
      properties: { 'table.replication.factor': String(rf) },
      custom_properties: {},
    }),
  ),
  ignoreIfExists: false,
})

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null, null])
})

afterEach(() => cluster.close())

describe('coordinator election', () => {
  it('makes exactly one of two coordinators active; the standby refuses DDL but answers reads', async () => {
    const c1 = await cluster.startCoordinator('c1')
    const c2 = await cluster.startCoordinator('c2')
    expect([c1.isActive, c2.isActive]).toEqual([true, false])
    expect(c1.coordinatorEpoch).toBe(1)
    const standby = await cluster.connect(c2)
    const refused = await failure(
      standby.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false }),
    )
    expect(refused.errorName).toBe('INVALID_COORDINATOR_EXCEPTION')
    await (await cluster.connect(c1)).request('CREATE_DATABASE', {
      databaseName: 'db',
      ignoreIfExists: false,
    })
    expect((await standby.request('LIST_DATABASES', {})).databaseName).toEqual(['db'])
    const metadata = await standby.request('GET_METADATA', {})
    expect(metadata.coordinatorServer?.port).toBe(c1.endpoints[0].port)
  })

  it('hands over at once when the active coordinator stops', async () => {
    const c1 = await cluster.startCoordinator('c1')
    const c2 = await cluster.startCoordinator('c2')
    await c1.stop()
    await c2.electionTick()
    expect([c2.isActive, c2.coordinatorEpoch]).toEqual([true, 2])
    const client = await cluster.connect(c2)
    await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    expect((await client.request('GET_METADATA', {})).coordinatorServer?.nodeId).toBe(2)
  })

  it('takes over only after the lease of a crashed coordinator expires', async () => {
    // c1 hangs: its own clock stands still, so it never renews.
    const c1 = await cluster.startCoordinator('c1', { time: new TestingTime(cluster.time.nowMs()) })
    const c2 = await cluster.startCoordinator('c2')
    await cluster.advance(LEASE_MS - 1)
    await c2.electionTick()
    expect(c2.isActive).toBe(false)
    await cluster.advance(2)
    await c2.electionTick()
    expect([c2.isActive, c2.coordinatorEpoch]).toEqual([true, 2])
    expect(c1.isActive).toBe(true) // it does not know yet; its writes are fenced (next test)
    const lease = await cluster.store.get(coordinatorKey().pk, coordinatorKey().sk)
    expect(lease?.value.coordinatorId).toBe('c2')
  })

  it("fences a deposed coordinator's bucket writes; it steps down", async () => {
    const c1Time = new TestingTime(cluster.time.nowMs())
    const c1 = await cluster.startCoordinator('c1', { time: c1Time })
    const client1 = await cluster.connect(c1)
    await client1.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    await client1.request('CREATE_TABLE', createTable('t', 3))
    await cluster.advance(LEASE_MS + 1)
    const c2 = await cluster.startCoordinator('c2')
    expect(c2.coordinatorEpoch).toBe(2)
    // Server 3 dies (by both coordinators' clocks); the new coordinator handles it first.
    await cluster.server(3).renew(cluster.catalog, -(LEASE_MS + 2))
    await c2.pollMembership()
    const byNew = await cluster.catalog.getBucket({ tableId: 0, bucket: 2 })
    expect(byNew?.leaderAndIsr).toMatchObject({ leader: 1, leaderEpoch: 1, coordinatorEpoch: 2 })
    // Server 2 dies as well; the deposed coordinator notices first, and its conditional write on a
    // bucket the new coordinator wrote fails: it steps down.
    await cluster.server(2).renew(cluster.catalog, -(LEASE_MS + 2))
    await c1.pollMembership()
    expect(c1.isActive).toBe(false)
    expect((await cluster.catalog.getBucket({ tableId: 0, bucket: 2 }))?.leaderAndIsr).toEqual(
      byNew?.leaderAndIsr,
    )
    const buckets = await cluster.catalog.listBuckets(0, null)
    expect(buckets.map(b => [b.leaderAndIsr.coordinatorEpoch, b.leaderAndIsr.isr.includes(2)])).toEqual([
      [2, true],
      [2, true],
      [2, true],
    ])
    const refused = await failure(
      client1.request('DROP_TABLE', {
        tablePath: { databaseName: 'db', tableName: 't' },
        ignoreIfNotExists: false,
      }),
    )
    expect(refused.errorName).toBe('INVALID_COORDINATOR_EXCEPTION')
    expect((await cluster.store.query(tableItemsPk(0))).items.length).toBeGreaterThan(0)
  })

  it('steps down when a renewal finds the lease taken over', async () => {
    const c1Time = new TestingTime(cluster.time.nowMs())
    const c1 = await cluster.startCoordinator('c1', { time: c1Time })
    await cluster.advance(LEASE_MS + 1)
    const c2 = await cluster.startCoordinator('c2')
    await c1.electionTick()
    expect([c1.isActive, c2.isActive]).toEqual([false, true])
  })
})
