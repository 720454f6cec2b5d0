import { Catalog, createDatabase, createTable, dropTable } from '@sluice/core/control-plane'
import { databaseDescriptor } from '@sluice/core/metadata'
import { tableItemsPk } from '@sluice/core/metastore'
import { TestingCrashingMetaStore, testLogTable } from '@sluice/core/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TestingCluster } from '../testing/testing-cluster.js'

/** sluice.coordinator.orphan-grace-period default. */
const GRACE_MS = 120_000
const path = { databaseName: 'db', tableName: 't' }

let cluster: TestingCluster

/** What a coordinator that died after `writes` metadata writes of a create left behind. */
async function crashedCreate(writes: number) {
  const crashing = new Catalog(new TestingCrashingMetaStore(cluster.store, writes), {
    nowMs: () => cluster.time.nowMs(),
  })
  const request = {
    tablePath: path,
    descriptor: testLogTable(1, 2),
    assignment: [[1, 2]],
    coordinatorEpoch: 1,
    ignoreIfExists: false,
  }
  await expect(createTable(crashing, request)).rejects.toThrow(/simulated crash/)
}

const tableItems = async () => (await cluster.store.query(tableItemsPk(0))).items.map(i => i.sk)

beforeEach(async () => {
  cluster = new TestingCluster()
  await cluster.addTabletServers([null, null])
  await createDatabase(cluster.catalog, 'db', databaseDescriptor(), false)
})

afterEach(() => cluster.close())

describe('repair of interrupted DDL', () => {
  it('rolls back a creation cut before its commit point once the grace period has passed', async () => {
    await crashedCreate(3) // id, table item, schema: no buckets, no pointer
    const coordinator = await cluster.startCoordinator('c1')
    expect(await tableItems()).toEqual(['SCHEMA#0000000001', 'TABLE'])
    await cluster.advance(GRACE_MS + 1)
    await coordinator.repairOrphans()
    expect(await tableItems()).toEqual([])
    const client = await cluster.connect(coordinator)
    expect((await client.request('TABLE_EXISTS', { tablePath: path })).exists).toBe(false)
  })

  it('finishes a creation cut after its commit point and announces its buckets', async () => {
    await crashedCreate(5) // id, table item, schema, bucket, pointer: not yet READY
    const coordinator = await cluster.startCoordinator('c1')
    await coordinator.settle()
    expect((await cluster.catalog.getTableById(0))?.state).toBe('READY')
    expect(cluster.server(1).latest().get('0:-:0')).toEqual({
      leader: 1,
      leaderEpoch: 0,
      isr: [1, 2],
      bucketEpoch: 0,
    })
  })

  it('cleans up after a drop cut after its commit point', async () => {
    await createTable(cluster.catalog, {
      tablePath: path,
      descriptor: testLogTable(1, 2),
      assignment: [[1, 2]],
      coordinatorEpoch: 1,
      ignoreIfExists: false,
    })
    const crashing = new Catalog(new TestingCrashingMetaStore(cluster.store, 1), {
      nowMs: () => cluster.time.nowMs(),
    })
    await expect(dropTable(crashing, path, false)).rejects.toThrow(/simulated crash/)
    expect((await cluster.catalog.getTableById(0))?.state).toBe('READY')
    const coordinator = await cluster.startCoordinator('c1')
    await coordinator.settle()
    expect(await tableItems()).toEqual([])
    for (const id of [1, 2]) {
      expect(
        cluster
          .server(id)
          .stops.flatMap(s => s.stopReplicasReq)
          .map(s => [s.tableBucket.tableId, s.delete]),
      ).toEqual([[0, true]])
    }
  })

  it('finishes a cleanup that a stopped coordinator left half done', async () => {
    const c1 = await cluster.startCoordinator('c1')
    const client = await cluster.connect(c1)
    const tableJson = Buffer.from(
      JSON.stringify({
        version: 1,
        schema: { version: 1, columns: [{ name: 'id', data_type: { type: 'INTEGER' } }] },
        bucket_key: [],
        bucket_count: 1,
        properties: {},
        custom_properties: {},
      }),
    )
    await client.request('CREATE_TABLE', { tablePath: path, tableJson, ignoreIfExists: false })
    await c1.settle()
    cluster.server(1).failNext = 1_000
    await client.request('DROP_TABLE', { tablePath: path, ignoreIfNotExists: false })
    await c1.stop()
    expect((await cluster.catalog.getTableById(0))?.state).toBe('DROPPED')
    cluster.server(1).failNext = 0
    const c2 = await cluster.startCoordinator('c2')
    await c2.settle()
    expect(await tableItems()).toEqual([])
    expect(
      cluster
        .server(1)
        .stops.flatMap(s => s.stopReplicasReq)
        .map(s => s.tableBucket.tableId),
    ).toEqual([0])
  })
})
