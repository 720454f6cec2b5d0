import type { RawValue } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import { sleep } from '@sluice/core/util'
import { afterEach, describe, expect, it } from 'vitest'
import { Connection } from '../connection.js'
import { FakeCluster, waitUntil } from '../testing/fake-cluster.js'
import type { AppendWriter } from './append-writer.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('name', DataTypes.STRING())
  .build()
const path = { databaseName: 'fluss', tableName: 'log' }

async function setup(
  options: {
    tabletServers?: number
    buckets?: number
    config?: Record<string, RawValue>
    descriptor?: TableDescriptor
  } = {},
) {
  const cluster = await FakeCluster.start({ tabletServers: options.tabletServers ?? 2 })
  cleanups.push(() => cluster.close())
  const connection = await Connection.create({
    'bootstrap.servers': cluster.bootstrapServers,
    ...options.config,
  })
  cleanups.push(() => connection.close())
  const descriptor =
    options.descriptor ??
    TableDescriptor.builder()
      .schema(schema)
      .distributedBy(options.buckets ?? 1)
      .build()
  await connection.getAdmin().createTable(path, descriptor)
  const table = await connection.getTable(path)
  const tableId = table.getTableInfo().tableId
  const rows = (bucket = 0, partitionId?: number) =>
    cluster.state.log(tableId, bucket, partitionId).rows(table.getTableInfo().rowType)
  return { cluster, connection, table, tableId, rows }
}

async function appendAll(writer: AppendWriter, ids: readonly number[]): Promise<void> {
  for (const id of ids) {
    const wait = writer.append([id, `row-${id}`])
    if (wait) await wait
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

describe('AppendWriter', () => {
  it('rejects a bad row synchronously, naming the column, and buffers nothing', async () => {
    const { table, rows } = await setup()
    const writer = table.newAppend().createWriter()
    expect(() => writer.append([null, 'x'])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST', message: expect.stringContaining("'id'") }),
    )
    expect(() => writer.append({ id: 1, nme: 'typo' })).toThrow(/Unknown column 'nme'/)
    expect(() => writer.append([1])).toThrow(/Row has 1 values, the table has 2 columns/)
    expect(writer.bufferedBytes).toBe(0)
    writer.append({ id: 2, name: 'ok' })
    await writer.flush()
    expect(rows()).toEqual([[2, 'ok']])
  })

  it('spreads rows over buckets by the hash of the bucket key, as bucketForKey does', async () => {
    const descriptor = TableDescriptor.builder().schema(schema).distributedBy(4, 'id').build()
    const { table, rows } = await setup({ descriptor })
    const writer = table.newAppend().createWriter()
    await appendAll(writer, range(0, 40))
    await writer.flush()
    const counts = [0, 1, 2, 3].map(b => rows(b).length)
    expect(counts.reduce((a, b) => a + b)).toBe(40)
    expect(counts.filter(c => c > 0).length).toBeGreaterThan(1)
    // The same key always lands in the same bucket.
    await appendAll(writer, [7])
    await writer.flush()
    const bucketOf7 = [0, 1, 2, 3].filter(b => rows(b).filter(r => r[0] === 7).length === 2)
    expect(bucketOf7).toHaveLength(1)
  })

  it('applies backpressure: append returns a promise when the buffer is full', async () => {
    const { table, rows } = await setup({
      config: { 'client.writer.buffer.memory-size': '2kb', 'client.writer.batch-size': '1kb' },
    })
    const writer = table.newAppend().createWriter()
    let waits = 0
    for (const id of range(0, 300)) {
      const wait = writer.append([id, 'x'.repeat(30)])
      if (wait) {
        waits++
        expect(() => writer.append([999_999, 'ignored'])).toThrow(
          expect.objectContaining({ errorName: 'RESOURCE_EXHAUSTED' }),
        )
        await wait
      }
    }
    await writer.flush()
    expect(waits).toBeGreaterThan(0)
    expect(rows().map(r => r[0])).toEqual(range(0, 300))
    expect(writer.bufferedBytes).toBe(0)
  })

  it('reports per-row offsets with appendWithResult', async () => {
    const { table } = await setup()
    const writer = table.newAppend().createWriter()
    const results = await Promise.all(range(0, 5).map(id => writer.appendWithResult([id, null])))
    expect(results).toEqual(range(0, 5).map(offset => ({ bucket: 0, offset })))
  })

  it('retries against the new leader after NOT_LEADER_OR_FOLLOWER, writing each row once', async () => {
    const { cluster, table, tableId, rows } = await setup({ tabletServers: 2 })
    const writer = table.newAppend().createWriter()
    await appendAll(writer, range(0, 10))
    await writer.flush()
    expect(cluster.state.leaderOf(tableId, 0)).toBe(1)

    // The leader moves to server 2, but the metadata still names server 1 for a while.
    cluster.state.autoPublish = false
    cluster.state.moveLeader(tableId, 0, 2)
    await appendAll(writer, range(10, 20))
    const flushed = writer.flush()
    await waitUntil(() => cluster.stats.notLeaderAnswers >= 2, 5000, 'NOT_LEADER answers')
    cluster.state.publishLeaders()
    await flushed
    expect(rows().map(r => r[0])).toEqual(range(0, 20))
  })

  it('re-sends after a disconnect mid-flight without duplicating rows', async () => {
    const { cluster, table, rows } = await setup()
    let dropped = false
    cluster.hooks.afterProduce = serverId => {
      if (dropped) return
      dropped = true
      cluster.dropConnections(serverId)
    }
    const writer = table.newAppend().createWriter()
    await appendAll(writer, range(0, 25))
    await writer.flush()
    expect(dropped).toBe(true)
    expect(cluster.stats.produceRequests).toBeGreaterThanOrEqual(2)
    expect(rows().map(r => r[0])).toEqual(range(0, 25))
  })

  it('retries a request that timed out; the server drops the duplicate', async () => {
    const { cluster, table, rows } = await setup({ config: { 'client.request-timeout': '400ms' } })
    let delayed = false
    cluster.hooks.afterProduce = async () => {
      if (delayed) return
      delayed = true
      await sleep(700)
    }
    const writer = table.newAppend().createWriter()
    await appendAll(writer, range(0, 5))
    await writer.flush()
    expect(rows().map(r => r[0])).toEqual(range(0, 5))
  })

  it('fails the flush with the server error and reports it to onError when retries are exhausted', async () => {
    const { cluster, table } = await setup({ config: { 'client.writer.retries': 1 } })
    cluster.hooks.beforeProduce = () => {
      throw new FlussError('STORAGE_EXCEPTION', 'disk trouble')
    }
    const errors: FlussError[] = []
    const writer = table.newAppend().createWriter({ onError: e => errors.push(e) })
    writer.append([1, 'a'])
    await expect(writer.flush()).rejects.toMatchObject({ errorName: 'STORAGE_EXCEPTION' })
    expect(errors.map(e => e.errorName)).toEqual(['STORAGE_EXCEPTION'])
    expect(cluster.stats.produceRequests).toBe(2)
  })

  it('writes partitioned tables, creating missing partitions', async () => {
    const partitioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .build()
    const descriptor = TableDescriptor.builder()
      .schema(partitioned)
      .partitionedBy('dt')
      .distributedBy(2)
      .build()
    const { cluster, table, tableId } = await setup({ descriptor })
    const writer = table.newAppend().createWriter()
    writer.append([1, '2024-01-01'])
    writer.append([2, '2024-01-02'])
    writer.append([3, '2024-01-01'])
    await writer.flush()
    const partitions = cluster.state.tables.get('fluss.log')?.partitions
    expect([...(partitions?.keys() ?? [])].sort()).toEqual(['2024-01-01', '2024-01-02'])
    const id = partitions?.get('2024-01-01') as number
    const rowsOf = (pid: number) =>
      [0, 1].flatMap(b => cluster.state.log(tableId, b, pid).rows(table.getTableInfo().rowType))
    expect(
      rowsOf(id)
        .map(r => r[0])
        .sort(),
    ).toEqual([1, 3])
  })

  it('fails rows of a missing partition when dynamic partition creation is off', async () => {
    const partitioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .build()
    const descriptor = TableDescriptor.builder()
      .schema(partitioned)
      .partitionedBy('dt')
      .distributedBy(1)
      .build()
    const { cluster, table } = await setup({
      descriptor,
      config: { 'client.writer.dynamic-create-partition.enabled': false },
    })
    const writer = table.newAppend().createWriter()
    writer.append([1, 'nope'])
    await expect(writer.flush()).rejects.toMatchObject({ errorName: 'PARTITION_NOT_EXISTS' })
    expect(cluster.state.tables.get('fluss.log')?.partitions.size).toBe(0)
    expect(() => writer.append([2, null])).toThrow(
      expect.objectContaining({ errorName: 'PARTITION_SPEC_INVALID_EXCEPTION' }),
    )
  })

  it('refuses appends after close, and close flushes what was appended', async () => {
    const { table, rows } = await setup()
    const writer = table.newAppend().createWriter()
    writer.append([1, 'a'])
    await writer.close()
    expect(rows()).toEqual([[1, 'a']])
    expect(() => writer.append([2, 'b'])).toThrow(/closed/)
  })
})
