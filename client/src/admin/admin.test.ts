import { databaseDescriptor, Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { Connection } from '../connection.js'
import { FakeCluster } from '../testing/fake-cluster.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup() {
  const cluster = await FakeCluster.start({ tabletServers: 2 })
  cleanups.push(() => cluster.close())
  const connection = await Connection.create({ 'bootstrap.servers': cluster.bootstrapServers })
  cleanups.push(() => connection.close())
  return { cluster, connection, admin: connection.getAdmin() }
}

const schema = Schema.newBuilder().column('id', DataTypes.INT()).column('dt', DataTypes.STRING()).build()
const path = { databaseName: 'shop', tableName: 'orders' }

describe('Admin', () => {
  it('creates, describes, lists and drops databases', async () => {
    const { admin } = await setup()
    await admin.createDatabase('shop', databaseDescriptor({ team: 'a' }, 'orders and more'))
    expect(await admin.databaseExists('shop')).toBe(true)
    expect((await admin.listDatabases()).sort()).toEqual(['fluss', 'shop'])
    const info = await admin.getDatabaseInfo('shop')
    expect(info.descriptor).toEqual({ comment: 'orders and more', customProperties: { team: 'a' } })
    await expect(admin.createDatabase('shop')).rejects.toMatchObject({
      code: 6,
      errorName: 'DATABASE_ALREADY_EXIST',
    })
    await admin.createDatabase('shop', undefined, true)
    await admin.dropDatabase('shop')
    expect(await admin.databaseExists('shop')).toBe(false)
    await expect(admin.getDatabaseInfo('shop')).rejects.toMatchObject({ code: 4 })
    await expect(admin.createDatabase('bad name')).rejects.toMatchObject({
      errorName: 'INVALID_DATABASE_EXCEPTION',
    })
  })

  it('creates tables and reads back their info and schema', async () => {
    const { admin } = await setup()
    await admin.createDatabase('shop')
    const descriptor = TableDescriptor.builder()
      .schema(schema)
      .distributedBy(3, 'id')
      .property('table.log.ttl', '1d')
      .comment('orders')
      .build()
    await admin.createTable(path, descriptor)
    await expect(admin.createTable(path, descriptor)).rejects.toMatchObject({ code: 8 })
    await admin.createTable(path, descriptor, true)
    expect(await admin.tableExists(path)).toBe(true)
    expect(await admin.listTables('shop')).toEqual(['orders'])
    const info = await admin.getTableInfo(path)
    expect(info.numBuckets).toBe(3)
    expect(info.bucketKeys).toEqual(['id'])
    expect(info.comment).toBe('orders')
    expect(info.properties).toMatchObject({ 'table.log.ttl': '1d' })
    const { schemaId, schema: read } = await admin.getTableSchema(path)
    expect(schemaId).toBe(info.schemaId)
    expect(read.columnNames).toEqual(['id', 'dt'])
    await admin.dropTable(path)
    await expect(admin.getTableInfo(path)).rejects.toMatchObject({ errorName: 'TABLE_NOT_EXIST' })
    await admin.dropTable(path, true)
    await expect(
      admin.createTable({ databaseName: 'shop', tableName: 'a.b' }, descriptor),
    ).rejects.toMatchObject({ errorName: 'INVALID_TABLE_EXCEPTION' })
  })

  it('manages partitions', async () => {
    const { admin } = await setup()
    await admin.createDatabase('shop')
    await admin.createTable(
      path,
      TableDescriptor.builder().schema(schema).partitionedBy('dt').distributedBy(1).build(),
    )
    await admin.createPartition(path, { dt: '2024-01-01' })
    await admin.createPartition(path, new Map([['dt', '2024-01-02']]))
    await expect(admin.createPartition(path, { dt: '2024-01-01' })).rejects.toMatchObject({
      errorName: 'PARTITION_ALREADY_EXISTS',
    })
    const partitions = await admin.listPartitionInfos(path)
    expect(partitions.map(p => [p.partitionName, p.spec])).toEqual([
      ['2024-01-01', { dt: '2024-01-01' }],
      ['2024-01-02', { dt: '2024-01-02' }],
    ])
    expect((await admin.listPartitionInfos(path, { dt: '2024-01-02' })).map(p => p.partitionName)).toEqual([
      '2024-01-02',
    ])
    await admin.dropPartition(path, { dt: '2024-01-01' })
    expect((await admin.listPartitionInfos(path)).map(p => p.partitionName)).toEqual(['2024-01-02'])
  })

  it('lists earliest, latest and by-timestamp offsets from the bucket leaders', async () => {
    const { admin, connection, cluster } = await setup()
    await admin.createDatabase('shop')
    await admin.createTable(path, TableDescriptor.builder().schema(schema).distributedBy(2, 'id').build())
    const table = await connection.getTable(path)
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 10; i++) writer.append([i, 'x'])
    await writer.flush()
    const tableId = table.getTableInfo().tableId
    const ends = [0, 1].map(b => cluster.state.log(tableId, b).endOffset)
    expect(await admin.listOffsets(path, [0, 1], 'earliest')).toEqual(
      new Map([
        [0, 0],
        [1, 0],
      ]),
    )
    expect(await admin.listOffsets(path, [0, 1], 'latest')).toEqual(
      new Map([
        [0, ends[0]],
        [1, ends[1]],
      ]),
    )
    expect(await admin.listOffsets(path, [0, 1], { timestamp: Date.now() + 60_000 })).toEqual(
      new Map([
        [0, ends[0]],
        [1, ends[1]],
      ]),
    )
    await expect(admin.listOffsets(path, [2], 'latest')).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    })
    await expect(admin.listOffsets(path, [0], 'latest', 'p1')).rejects.toMatchObject({
      errorName: 'TABLE_NOT_PARTITIONED_EXCEPTION',
    })
  })

  it('finds the new leader for list offsets after a leader change', async () => {
    const { admin, cluster } = await setup()
    await admin.createDatabase('shop')
    await admin.createTable(path, TableDescriptor.builder().schema(schema).distributedBy(1).build())
    expect(await admin.listOffsets(path, [0], 'latest')).toEqual(new Map([[0, 0]]))
    const tableId = (await admin.getTableInfo(path)).tableId
    cluster.state.moveLeader(tableId, 0, cluster.state.leaderOf(tableId, 0) === 1 ? 2 : 1)
    const answers = cluster.stats.notLeaderAnswers
    expect(await admin.listOffsets(path, [0], 'earliest')).toEqual(new Map([[0, 0]]))
    expect(cluster.stats.notLeaderAnswers).toBe(answers + 1)
  })

  it('names the coordinator and tablet servers', async () => {
    const { admin } = await setup()
    const nodes = await admin.getServerNodes()
    expect(nodes.map(n => [n.id, n.role])).toEqual([
      [0, 'coordinator'],
      [1, 'tablet'],
      [2, 'tablet'],
    ])
  })
})
