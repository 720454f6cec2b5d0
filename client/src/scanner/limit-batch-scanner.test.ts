import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import type { Table } from '../table/table.js'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import { waitUntil } from '../testing/fake-cluster.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const path = { databaseName: 'fluss', tableName: 'limited' }
const pkSchema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .primaryKey('id')
  .build()

async function pkTable(tabletServers = 1) {
  const { cluster, connection } = await startClient(cleanups, { tabletServers })
  const { table, tableId } = await createTable(
    connection,
    path,
    TableDescriptor.builder().schema(pkSchema).distributedBy(1).build(),
  )
  const writer = table.newUpsert().createWriter()
  for (const id of [5, 3, 1, 4, 2]) writer.upsert([id, `n${id}`])
  await writer.close()
  return { cluster, connection, table, tableId }
}

async function pollAll(table: Table, limit: number, project?: string[]) {
  const scan = project === undefined ? table.newScan() : table.newScan().project(project)
  const scanner = scan.limit(limit).createBatchScanner(0)
  const rows = await scanner.pollBatch(5000)
  expect(await scanner.pollBatch(10)).toBeNull()
  return rows
}

describe('LimitBatchScanner', () => {
  it('reads the first rows of a primary-key bucket in key order, projected client-side', async () => {
    const { cluster, table, tableId } = await pkTable()
    expect(await pollAll(table, 3)).toEqual([
      [1, 'n1'],
      [2, 'n2'],
      [3, 'n3'],
    ])
    expect(await pollAll(table, 10, ['name', 'id'])).toEqual([
      ['n1', 1],
      ['n2', 2],
      ['n3', 3],
      ['n4', 4],
      ['n5', 5],
    ])
    expect(cluster.kvRequests.limitScans[0]).toEqual({ tableId, partitionId: null, bucketId: 0, limit: 3 })
  })

  it('reads the latest records of a log table bucket', async () => {
    const { connection } = await startClient(cleanups)
    const schema = Schema.newBuilder().column('id', DataTypes.INT()).build()
    const { table } = await createTable(
      connection,
      path,
      TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    )
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 6; i++) writer.append([i])
    await writer.flush()
    for (let i = 6; i < 10; i++) writer.append([i])
    await writer.flush()
    expect(await pollAll(table, 3)).toEqual([[7], [8], [9]])
    expect(await pollAll(table, 7)).toEqual([[3], [4], [5], [6], [7], [8], [9]])
  })

  it('returns an empty batch while the answer is late, then the rows once, then null', async () => {
    const { cluster, table } = await pkTable()
    let release: () => void = () => {}
    const gate = new Promise<void>(resolve => {
      release = resolve
    })
    cluster.hooks.beforeLimitScan = () => gate
    const scanner = table.newScan().limit(1).createBatchScanner(0)
    expect(await scanner.pollBatch(20)).toEqual([])
    release()
    expect(await scanner.pollBatch(5000)).toEqual([[1, 'n1']])
    expect(await scanner.pollBatch(5000)).toBeNull()
    scanner.close()
    await expect(scanner.pollBatch(10)).rejects.toThrow(/closed/)
  })

  it('retries on the new leader after NOT_LEADER_OR_FOLLOWER', async () => {
    const { cluster, table, tableId } = await pkTable(2)
    cluster.state.autoPublish = false
    cluster.state.moveLeader(tableId, 0, 2)
    const scanner = table.newScan().limit(2).createBatchScanner(0)
    await waitUntil(() => cluster.stats.notLeaderAnswers >= 1, 5000, 'a NOT_LEADER answer')
    cluster.state.publishLeaders()
    expect(await scanner.pollBatch(5000)).toEqual([
      [1, 'n1'],
      [2, 'n2'],
    ])
  })

  it('validates the limit, the bucket and the scanner kind', async () => {
    const { table } = await pkTable()
    expect(() => table.newScan().limit(0)).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() => table.newScan().createBatchScanner(0)).toThrow(/only available when limit is set/)
    expect(() => table.newScan().limit(5).createLogScanner()).toThrow(/doesn't support limit pushdown/)
    expect(() => table.newScan().limit(5).createBatchScanner(1)).toThrow(/Bucket 1 is outside 0..0/)
    expect(() => table.newScan().limit(5).createBatchScanner(7, 0)).toThrow(
      expect.objectContaining({ errorName: 'TABLE_NOT_PARTITIONED_EXCEPTION' }),
    )
  })
})
