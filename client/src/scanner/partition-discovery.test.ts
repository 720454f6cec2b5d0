import { FlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { MetadataRequest } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import type { Connection } from '../connection.js'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import type { FakeCluster } from '../testing/fake-cluster.js'
import type { LogScanner } from './log-scanner.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const schema = Schema.newBuilder().column('id', DataTypes.INT()).column('dt', DataTypes.STRING()).build()
const partitioned = TableDescriptor.builder().schema(schema).partitionedBy('dt').distributedBy(2).build()
const path = { databaseName: 'fluss', tableName: 'discovered' }
const FAST = {
  'client.scanner.partition.discovery-interval': '20ms',
  'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN',
}

async function setup(config: Record<string, string> = FAST) {
  const { cluster, connection } = await startClient(cleanups, { config })
  const { table, tableId } = await createTable(connection, path, partitioned)
  const scanner = table.newScan().createLogScanner()
  cleanups.push(() => scanner.close())
  const write = async (rows: readonly Row[]) => {
    const writer = table.newAppend().createWriter()
    for (const row of rows) writer.append(row)
    await writer.close()
  }
  return { cluster, connection, table, tableId, scanner, write }
}

const rows = (dt: string, from: number, count: number): Row[] =>
  Array.from({ length: count }, (_, i) => [from + i, dt])

/** Polls until `count` rows arrived (bounded); returns them sorted by id. */
async function pollRows(scanner: LogScanner, count: number, timeoutMs = 5000): Promise<Row[]> {
  const got: Row[] = []
  const deadline = Date.now() + timeoutMs
  while (got.length < count) {
    if (Date.now() > deadline) throw new Error(`got ${got.length} of ${count} rows`)
    for (const r of await scanner.poll(100)) got.push(r.row)
  }
  return got.sort((a, b) => Number(a[0]) - Number(b[0]))
}

/** Polls (bounded) until `condition` holds, failing on any poll error. */
async function pollWhile(scanner: LogScanner, condition: () => boolean, timeoutMs = 5000): Promise<Row[]> {
  const got: Row[] = []
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached while polling')
    for (const r of await scanner.poll(20)) got.push(r.row)
  }
  return got
}

async function partitionId(connection: Connection, name: string): Promise<number> {
  const infos = await connection.getAdmin().listPartitionInfos(path)
  const info = infos.find(p => p.partitionName === name)
  if (info === undefined) throw new Error(`no partition ${name}`)
  return info.partitionId
}

/**
 * Drops a partition the way a Sluice cluster shows it: gone from listings, its buckets led by no
 * server (fetches answer NOT_LEADER_OR_FOLLOWER) and GET_METADATA naming its id failing with
 * PARTITION_NOT_EXISTS.
 */
async function dropLikeServer(cluster: FakeCluster, connection: Connection, tableId: number, name: string) {
  const id = await partitionId(connection, name)
  await connection.getAdmin().dropPartition(path, { dt: name })
  for (let b = 0; b < 2; b++) cluster.state.leaders.delete(`${tableId}:${id}:${b}`)
  const state = cluster.state
  const metadata = state.metadata.bind(state)
  state.metadata = (request: MetadataRequest) => {
    if (request.partitionsId.includes(id))
      throw new FlussError('PARTITION_NOT_EXISTS', `The partition id '${id}' does not exist.`)
    return metadata(request)
  }
  return id
}

const partitionsOf = (scanner: LogScanner) => new Set(scanner.subscriptions().map(b => b.partitionId))

describe('LogScanner.subscribeAllPartitions', () => {
  it('reads partitions created after it started, each from its earliest offset', async () => {
    const { scanner, write, connection } = await setup()
    await scanner.subscribeAllPartitions()
    expect(scanner.discoveredPartitions()).toEqual([])
    expect((await scanner.poll(30)).isEmpty()).toBe(true)
    await write([...rows('a', 0, 4), ...rows('b', 4, 4), ...rows('c', 8, 4)])
    expect(await pollRows(scanner, 12)).toEqual([...rows('a', 0, 4), ...rows('b', 4, 4), ...rows('c', 8, 4)])
    expect(scanner.discoveredPartitions().map(p => p.partitionName)).toEqual(['a', 'b', 'c'])
    expect(scanner.subscriptions()).toHaveLength(6)
    await write(rows('d', 12, 3))
    expect(await pollRows(scanner, 3)).toEqual(rows('d', 12, 3))
    expect(scanner.discoveredPartitions().map(p => p.spec)).toContainEqual({ dt: 'd' })
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
    expect(await partitionId(connection, 'd')).toBe(scanner.discoveredPartitions()[3].partitionId)
  })

  it("starts the partitions that exist at 'latest', and new partitions from their beginning", async () => {
    const { scanner, write } = await setup()
    await write([...rows('a', 0, 5), ...rows('b', 5, 5)])
    await scanner.subscribeAllPartitions('latest')
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
    await write([...rows('a', 100, 2), ...rows('c', 200, 3)])
    expect(await pollRows(scanner, 5)).toEqual([...rows('a', 100, 2), ...rows('c', 200, 3)])
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
  })

  it('starts the partitions that exist at a timestamp', async () => {
    const { scanner, write } = await setup()
    await write([...rows('a', 0, 3), ...rows('b', 3, 3)])
    await new Promise(resolve => setTimeout(resolve, 20))
    const middleMs = Date.now()
    await new Promise(resolve => setTimeout(resolve, 20))
    await write([...rows('a', 10, 2), ...rows('b', 20, 2)])
    await scanner.subscribeAllPartitions({ timestamp: middleMs })
    expect(await pollRows(scanner, 4)).toEqual([...rows('a', 10, 2), ...rows('b', 20, 2)])
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
  })

  it('lists at client.scanner.partition.discovery-interval unless an interval is given', async () => {
    const { scanner, write, table } = await setup({ 'client.scanner.partition.discovery-interval': '1h' })
    await scanner.subscribeAllPartitions()
    await write(rows('a', 0, 2))
    expect((await scanner.poll(100)).isEmpty()).toBe(true)
    expect(scanner.discoveredPartitions()).toEqual([])
    const eager = table.newScan().createLogScanner()
    cleanups.push(() => eager.close())
    await eager.subscribeAllPartitions('earliest', { discoveryIntervalMs: 0 })
    expect(await pollRows(eager, 2)).toEqual(rows('a', 0, 2))
    await write(rows('b', 2, 2))
    expect((await eager.poll(100)).isEmpty()).toBe(true)
  })

  it('ends the subscriptions of a partition no longer listed, without an error', async () => {
    const { scanner, write, connection } = await setup()
    await write([...rows('a', 0, 2), ...rows('b', 2, 2)])
    await scanner.subscribeAllPartitions()
    expect(await pollRows(scanner, 4)).toEqual([...rows('a', 0, 2), ...rows('b', 2, 2)])
    const b = await partitionId(connection, 'b')
    await connection.getAdmin().dropPartition(path, { dt: 'b' })
    await pollWhile(scanner, () => !partitionsOf(scanner).has(b))
    expect(scanner.discoveredPartitions().map(p => p.partitionName)).toEqual(['a'])
    await write(rows('a', 10, 2))
    expect(await pollRows(scanner, 2)).toEqual(rows('a', 10, 2))
  })

  it('ends a partition the fetcher finds dropped before the next listing, quietly', async () => {
    const { cluster, scanner, write, connection, tableId } = await setup({
      ...FAST,
      'client.scanner.partition.discovery-interval': '1h',
    })
    await write([...rows('a', 0, 2), ...rows('b', 2, 2)])
    await scanner.subscribeAllPartitions()
    expect(await pollRows(scanner, 4)).toHaveLength(4)
    const b = await dropLikeServer(cluster, connection, tableId, 'b')
    await write(rows('a', 10, 2))
    const more = await pollWhile(scanner, () => !partitionsOf(scanner).has(b))
    more.push(...(await pollRows(scanner, 2 - more.length)))
    expect(more.sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual(rows('a', 10, 2))
    expect(scanner.discoveredPartitions().map(p => p.partitionName)).toEqual(['a'])
    expect(scanner.subscriptions()).toHaveLength(2)
  })

  it('skips a listed partition that is dropped before its start offset is found', async () => {
    const { cluster, scanner, write, connection, tableId } = await setup({
      ...FAST,
      'client.scanner.partition.discovery-interval': '1h',
    })
    await write([...rows('a', 0, 2), ...rows('b', 2, 2)])
    await scanner.subscribeAllPartitions()
    // Dropped after the listing, before the first poll looks up the start offsets.
    const dropped = await dropLikeServer(cluster, connection, tableId, 'b')
    expect(await pollRows(scanner, 2)).toEqual(rows('a', 0, 2))
    await pollWhile(scanner, () => !partitionsOf(scanner).has(dropped))
    expect(scanner.discoveredPartitions().map(p => p.partitionName)).toEqual(['a'])
  })

  it('rejects bad calls with typed errors', async () => {
    const { scanner, connection } = await setup()
    await expect(
      scanner.subscribeAllPartitions('earliest', { discoveryIntervalMs: -1 }),
    ).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    })
    await expect(scanner.subscribeAllPartitions({ timestamp: 1.5 })).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
      message: expect.stringContaining('Invalid offset spec'),
    })
    await scanner.subscribeAllPartitions()
    await expect(scanner.subscribeAllPartitions()).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' })
    const logPath = { databaseName: 'fluss', tableName: 'plain' }
    const plain = TableDescriptor.builder().schema(schema).distributedBy(1).build()
    const { table } = await createTable(connection, logPath, plain)
    const plainScanner = table.newScan().createLogScanner()
    await expect(plainScanner.subscribeAllPartitions()).rejects.toMatchObject({
      errorName: 'TABLE_NOT_PARTITIONED_EXCEPTION',
      code: 37,
    })
    plainScanner.close()
  })

  it('surfaces a listing that fails for good (table dropped) once through poll', async () => {
    const { scanner, connection } = await setup()
    await scanner.subscribeAllPartitions()
    await connection.getAdmin().dropTable(path)
    let error: unknown
    const deadline = Date.now() + 5000
    while (error === undefined && Date.now() < deadline) await scanner.poll(20).catch(e => (error = e))
    expect(error).toMatchObject({ errorName: 'TABLE_NOT_EXIST', code: 7 })
  })

  it('fails to start when the first listing fails, and may start again', async () => {
    const { scanner, cluster, connection } = await setup()
    const table = cluster.state.table(path)
    cluster.state.dropTable(path, false)
    await expect(scanner.subscribeAllPartitions()).rejects.toMatchObject({ errorName: 'TABLE_NOT_EXIST' })
    cluster.state.tables.set('fluss.discovered', table)
    await scanner.subscribeAllPartitions()
    expect(scanner.discoveredPartitions()).toEqual([])
    expect(await connection.getAdmin().tableExists(path)).toBe(true)
  })
})

describe('a scanner subscribed by hand to a partition that is dropped', () => {
  it('throws PARTITION_NOT_EXISTS once, ends those subscriptions and keeps reading the others', async () => {
    const { cluster, scanner, write, connection, tableId } = await setup()
    await write([...rows('a', 0, 2), ...rows('b', 2, 2)])
    const a = await partitionId(connection, 'a')
    const b = await partitionId(connection, 'b')
    for (const p of [a, b])
      for (let bucket = 0; bucket < 2; bucket++) scanner.subscribeFromBeginning(p, bucket)
    expect(await pollRows(scanner, 4)).toHaveLength(4)
    await dropLikeServer(cluster, connection, tableId, 'b')
    await write(rows('a', 10, 2))
    const got: Row[] = []
    const errors: unknown[] = []
    const deadline = Date.now() + 5000
    while ((got.length < 2 || errors.length === 0) && Date.now() < deadline) {
      try {
        for (const r of await scanner.poll(20)) got.push(r.row)
      } catch (e) {
        errors.push(e)
      }
    }
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ errorName: 'PARTITION_NOT_EXISTS', code: 36 })
    expect(got.sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual(rows('a', 10, 2))
    expect(partitionsOf(scanner)).toEqual(new Set([a]))
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
  })
})
