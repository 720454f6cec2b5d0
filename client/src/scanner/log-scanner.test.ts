import type { RawValue } from '@sluice/core/config'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { ChangeType } from '@sluice/core/record'
import { type Row, Timestamp } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { Connection } from '../connection.js'
import { FakeCluster, waitUntil } from '../testing/fake-cluster.js'
import type { LogScanner } from './log-scanner.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .column('amount', DataTypes.DOUBLE())
  .column('at', DataTypes.TIMESTAMP_LTZ(3))
  .build()
const path = { databaseName: 'fluss', tableName: 'scan' }

async function setup(
  options: {
    tabletServers?: number
    buckets?: number
    config?: Record<string, RawValue>
    rows?: number
  } = {},
) {
  const cluster = await FakeCluster.start({ tabletServers: options.tabletServers ?? 1 })
  cleanups.push(() => cluster.close())
  const connection = await Connection.create({
    'bootstrap.servers': cluster.bootstrapServers,
    ...options.config,
  })
  cleanups.push(() => connection.close())
  const descriptor = TableDescriptor.builder()
    .schema(schema)
    .distributedBy(options.buckets ?? 1)
    .build()
  await connection.getAdmin().createTable(path, descriptor)
  const table = await connection.getTable(path)
  const writer = table.newAppend().createWriter()
  for (let i = 0; i < (options.rows ?? 0); i++) writer.append(rowOf(i))
  await writer.flush()
  return { cluster, connection, table, writer, tableId: table.getTableInfo().tableId }
}

const rowOf = (i: number): Row => [i, `name-${i}`, i / 2, new Timestamp(1_700_000_000_000 + i)]

async function pollUntil(scanner: LogScanner, count: number, timeoutMs = 5000) {
  const records = []
  const deadline = Date.now() + timeoutMs
  while (records.length < count) {
    if (Date.now() > deadline) throw new Error(`got ${records.length} of ${count} records`)
    for (const r of await scanner.poll(500)) records.push(r)
  }
  return records
}

describe('LogScanner', () => {
  it('reads every column with offsets, commit timestamps and change types', async () => {
    const { table } = await setup({ rows: 12 })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    const records = await pollUntil(scanner, 12)
    expect(records.map(r => r.offset)).toEqual(Array.from({ length: 12 }, (_, i) => i))
    expect(records.map(r => r.row)).toEqual(Array.from({ length: 12 }, (_, i) => rowOf(i)))
    expect(records.every(r => r.changeType === ChangeType.APPEND_ONLY && r.timestamp > 0)).toBe(true)
    expect(scanner.position(0)).toBe(12)
  })

  it('starts at the subscribed offset and honours max-poll-records', async () => {
    const { table } = await setup({ rows: 20, config: { 'client.scanner.log.max-poll-records': 4 } })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 5)
    const first = await scanner.poll(2000)
    expect(first.count).toBe(4)
    expect([...first].map(r => r.offset)).toEqual([5, 6, 7, 8])
    const rest = await pollUntil(scanner, 11)
    expect(rest.map(r => r.offset)).toEqual(Array.from({ length: 11 }, (_, i) => 9 + i))
  })

  it('pushes a projection down and returns the columns in the requested order', async () => {
    const { cluster, table } = await setup({ rows: 6 })
    const scanner = table.newScan().project(['amount', 'id']).createLogScanner()
    scanner.subscribeFromBeginning(0)
    const records = await pollUntil(scanner, 6)
    expect(records.map(r => r.row)).toEqual(Array.from({ length: 6 }, (_, i) => [i / 2, i]))
    expect(cluster.stats.fetchRequests).toBeGreaterThan(0)
  })

  it('subscribes every bucket in one call and gives rows as objects keyed by column name', async () => {
    const { table } = await setup({
      buckets: 3,
      rows: 30,
      config: { 'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN' },
    })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribeAllBuckets()
    expect(scanner.subscriptions().map(b => b.bucket)).toEqual([0, 1, 2])
    const objects = []
    const deadline = Date.now() + 5000
    while (objects.length < 30 && Date.now() < deadline) objects.push(...(await scanner.poll(500)).objects())
    expect(objects.map(o => o.row.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 30 }, (_, i) => i),
    )
    expect(new Set(objects.map(o => o.bucket)).size).toBeGreaterThan(1)
    const first = objects.find(o => o.row.id === 7)
    expect(first?.row).toEqual({ id: 7, name: 'name-7', amount: 3.5, at: rowOf(7)[3] })
    expect(first?.changeType).toBe(ChangeType.APPEND_ONLY)
    // A projection names its own columns, in its order.
    const projected = table.newScan().project(['name', 'id']).createLogScanner()
    projected.subscribeAllBuckets(0)
    const [one] = (await projected.poll(2000)).objects()
    expect(Object.keys(one.row)).toEqual(['name', 'id'])
    expect(() => projected.subscribeAllBuckets(-5)).toThrow(/Invalid offset -5/)
  })

  it('resumes at the next offset on the new leader after a leader change', async () => {
    const { cluster, table, writer, tableId } = await setup({ tabletServers: 2, rows: 5 })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    expect((await pollUntil(scanner, 5)).map(r => r.offset)).toEqual([0, 1, 2, 3, 4])
    const answersBefore = cluster.stats.notLeaderAnswers
    cluster.state.moveLeader(tableId, 0, 2)
    for (let i = 5; i < 9; i++) writer.append(rowOf(i))
    await writer.flush()
    const more = await pollUntil(scanner, 4)
    expect(more.map(r => r.offset)).toEqual([5, 6, 7, 8])
    // One NOT_LEADER answer for the writer, at least one for the scanner's fetch to server 1.
    expect(cluster.stats.notLeaderAnswers).toBeGreaterThanOrEqual(answersBefore + 2)
  })

  it('surfaces an out-of-range offset as LOG_OFFSET_OUT_OF_RANGE_EXCEPTION', async () => {
    const { table } = await setup({ rows: 3 })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 100)
    let error: unknown
    const deadline = Date.now() + 5000
    while (error === undefined && Date.now() < deadline) await scanner.poll(200).catch(e => (error = e))
    expect(error).toMatchObject({
      errorName: 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
      message: expect.stringContaining('fetching offset 100'),
    })
  })

  it('rejects a batch whose CRC does not match', async () => {
    const { cluster, table, tableId } = await setup({ rows: 3 })
    const stored = cluster.state.log(tableId, 0).batches[0]
    stored.bytes[stored.bytes.length - 1] ^= 0xff
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    let error: unknown
    const deadline = Date.now() + 5000
    while (error === undefined && Date.now() < deadline) await scanner.poll(200).catch(e => (error = e))
    expect(error).toMatchObject({
      errorName: 'CORRUPT_RECORD_EXCEPTION',
      message: expect.stringContaining('CRC'),
    })
  })

  it('returns empty records when nothing arrives in time, then sees rows appended later', async () => {
    const { table, writer } = await setup({ rows: 0 })
    const scanner = table.newScan().createLogScanner()
    scanner.subscribeFromBeginning(0)
    expect((await scanner.poll(50)).isEmpty()).toBe(true)
    writer.append(rowOf(1))
    await writer.flush()
    expect((await pollUntil(scanner, 1))[0].row).toEqual(rowOf(1))
  })

  it('stops reading unsubscribed buckets and validates subscriptions', async () => {
    const { table } = await setup({
      buckets: 2,
      rows: 10,
      config: { 'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN' },
    })
    const scanner = table.newScan().createLogScanner()
    await expect(scanner.poll(10)).rejects.toThrow(/not subscribed to any bucket/)
    expect(() => scanner.subscribe(2, 0)).toThrow(/outside 0..1/)
    expect(() => scanner.subscribe(0, -5)).toThrow(/Invalid offset/)
    expect(() => scanner.subscribe(3, 0, 0)).toThrow(
      expect.objectContaining({ errorName: 'TABLE_NOT_PARTITIONED_EXCEPTION' }),
    )
    scanner.subscribe(0, 0)
    scanner.subscribe(1, 0)
    scanner.unsubscribe(1)
    expect(scanner.subscriptions().map(b => b.bucket)).toEqual([0])
    const records = await pollUntil(scanner, 5)
    const extra = await scanner.poll(100)
    expect(extra.count).toBe(0)
    expect(records.map(r => r.offset)).toEqual([0, 1, 2, 3, 4])
    expect(() => table.newScan().project(['nope'])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_COLUMN_PROJECTION' }),
    )
    expect(() => table.newScan().project(['id', 'id'])).toThrow(/repeats a column/)
  })

  it('reads one partition of a partitioned table', async () => {
    const cluster = await FakeCluster.start()
    cleanups.push(() => cluster.close())
    const connection = await Connection.create({ 'bootstrap.servers': cluster.bootstrapServers })
    cleanups.push(() => connection.close())
    const partitioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .build()
    const ppath = { databaseName: 'fluss', tableName: 'parts' }
    await connection
      .getAdmin()
      .createTable(
        ppath,
        TableDescriptor.builder().schema(partitioned).partitionedBy('dt').distributedBy(1).build(),
      )
    const table = await connection.getTable(ppath)
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 6; i++) writer.append([i, i % 2 === 0 ? 'even' : 'odd'])
    await writer.flush()
    const partitions = await connection.getAdmin().listPartitionInfos(ppath)
    const odd = partitions.find(p => p.partitionName === 'odd')?.partitionId as number
    const scanner = table.newScan().project(['id']).createLogScanner()
    expect(() => scanner.subscribe(0, 0)).toThrow(/partitioned/)
    expect(() => scanner.subscribeAllBuckets()).toThrow(/subscribeAllPartitions/)
    scanner.subscribeFromBeginning(odd, 0)
    const records = await pollUntil(scanner, 3)
    expect(records.map(r => r.row)).toEqual([[1], [3], [5]])
    expect((await connection.getAdmin().listOffsets(ppath, [0], 'latest', 'odd')).get(0)).toBe(3)
  })

  it('lets wakeup() end a waiting poll early', async () => {
    const { table } = await setup()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    const polling = scanner.poll(60_000)
    await waitUntil(() => true)
    scanner.wakeup()
    expect((await polling).isEmpty()).toBe(true)
  })
})
