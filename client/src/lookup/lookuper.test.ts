import { bucketForKey } from '@sluice/core/bucketing'
import type { RawValue } from '@sluice/core/config'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { CompactedKeyEncoder } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import { waitUntil } from '../testing/fake-cluster.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .primaryKey('id')
  .build()
const path = { databaseName: 'fluss', tableName: 'pk' }

async function setup(
  options: { descriptor?: TableDescriptor; tabletServers?: number; config?: Record<string, RawValue> } = {},
) {
  const { cluster, connection } = await startClient(cleanups, {
    tabletServers: options.tabletServers,
    config: { 'client.lookup.batch-timeout': '20ms', ...options.config },
  })
  const descriptor = options.descriptor ?? TableDescriptor.builder().schema(schema).distributedBy(2).build()
  const { table, tableId } = await createTable(connection, path, descriptor)
  return { cluster, connection, table, tableId }
}

async function upsertAll(table: Awaited<ReturnType<typeof setup>>['table'], rows: unknown[][]) {
  const writer = table.newUpsert().createWriter()
  for (const row of rows) writer.upsert(row)
  await writer.close()
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe('Lookuper', () => {
  it('batches keys per bucket into one LOOKUP per leader; a missing key is null', async () => {
    const { cluster, table, tableId } = await setup()
    await upsertAll(
      table,
      range(10).map(i => [i, `name-${i}`]),
    )
    const lookuper = table.newLookup().createLookuper()
    const results = await Promise.all([...range(10), 100].map(id => lookuper.lookup([id])))
    expect(results.map(r => r.singletonRow())).toEqual([...range(10).map(i => [i, `name-${i}`]), null])
    expect(results[10].rows()).toEqual([])

    expect(cluster.kvRequests.lookups).toHaveLength(1)
    const request = cluster.kvRequests.lookups[0]
    expect(request).toMatchObject({ api: 'LOOKUP', tableId, serverId: 1 })
    expect(request.buckets.map(b => b.bucketId).sort()).toEqual([0, 1])
    const encoder = CompactedKeyEncoder.of(schema.rowType, ['id'])
    for (const b of request.buckets) {
      for (const key of b.keys) expect(bucketForKey(key, 2)).toBe(b.bucketId)
    }
    const keys = request.buckets.flatMap(b => b.keys.map(k => k.toString('hex'))).sort()
    expect(keys).toEqual([...range(10), 100].map(id => encoder.encodeKey([id, null]).toString('hex')).sort())
  })

  it('takes key rows as objects, and sends at most client.lookup.max-batch-size keys per round', async () => {
    const { cluster, table } = await setup({ config: { 'client.lookup.max-batch-size': 4 } })
    await upsertAll(table, [[1, 'a']])
    const lookuper = table.newLookup().createLookuper()
    const results = await Promise.all(range(10).map(id => lookuper.lookup({ id })))
    expect(results[1].singletonRow()).toEqual([1, 'a'])
    const sizes = cluster.kvRequests.lookups.map(r => r.buckets.reduce((n, b) => n + b.keys.length, 0))
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4)
  })

  it('refuses lookups beyond client.lookup.queue-size with RESOURCE_EXHAUSTED', async () => {
    const { table } = await setup({ config: { 'client.lookup.queue-size': 2 } })
    const lookuper = table.newLookup().createLookuper()
    const accepted = [lookuper.lookup([1]), lookuper.lookup([2])]
    await expect(lookuper.lookup([3])).rejects.toMatchObject({ errorName: 'RESOURCE_EXHAUSTED' })
    expect((await Promise.all(accepted)).map(r => r.singletonRow())).toEqual([null, null])
  })

  it('rejects a bad key row with INVALID_REQUEST naming the column', async () => {
    const { table } = await setup()
    const lookuper = table.newLookup().createLookuper()
    await expect(lookuper.lookup([null])).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
      message: expect.stringContaining("'id'"),
    })
    await expect(lookuper.lookup([1, 'x'])).rejects.toThrow(/Row has 2 values, the lookup key has 1 columns/)
  })

  it('retries on the new leader after NOT_LEADER_OR_FOLLOWER', async () => {
    const { cluster, table, tableId } = await setup({
      tabletServers: 2,
      descriptor: TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    })
    await upsertAll(table, [[7, 'seven']])
    cluster.state.autoPublish = false
    cluster.state.moveLeader(tableId, 0, 2)
    const found = table.newLookup().createLookuper().lookup([7])
    await waitUntil(() => cluster.stats.notLeaderAnswers >= 1, 5000, 'a NOT_LEADER answer')
    cluster.state.publishLeaders()
    expect((await found).singletonRow()).toEqual([7, 'seven'])
    const servers = cluster.kvRequests.lookups.map(r => r.serverId)
    expect(servers[0]).toBe(1)
    expect(servers.at(-1)).toBe(2)
  })

  it('decodes rows stored under an older schema, fetching that schema once, padded with NULLs', async () => {
    const { cluster, connection, table } = await setup()
    await upsertAll(table, [
      [1, 'old'],
      [2, 'older'],
    ])
    const evolved = Schema.newBuilder().fromSchema(schema).column('extra', DataTypes.STRING()).build()
    expect(cluster.state.evolveSchema(path, evolved)).toBe(2)
    const latest = await connection.getTable(path)
    expect(latest.getTableInfo().schemaId).toBe(2)
    const lookuper = latest.newLookup().createLookuper()
    const before = cluster.stats.schemaRequests
    expect((await lookuper.lookup([1])).singletonRow()).toEqual([1, 'old', null])
    expect((await lookuper.lookup([2])).singletonRow()).toEqual([2, 'older', null])
    expect(cluster.stats.schemaRequests - before).toBe(1)
  })

  it('rejects corrupt stored values and values of unknown schemas with typed errors', async () => {
    const { cluster, table, tableId } = await setup({
      descriptor: TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    })
    const encoder = CompactedKeyEncoder.of(schema.rowType, ['id'])
    const store = cluster.state.kv(tableId, 0)
    store.put(encoder.encodeKey([1, null]), Buffer.from([1, 0, 0x00, 0x01, 0x05]))
    store.put(encoder.encodeKey([2, null]), Buffer.from([1]))
    store.put(encoder.encodeKey([3, null]), Buffer.from([7, 0, 0x00, 0x03]))
    const lookuper = table.newLookup().createLookuper()
    await expect(lookuper.lookup([1])).rejects.toMatchObject({ errorName: 'CORRUPT_RECORD_EXCEPTION' })
    await expect(lookuper.lookup([2])).rejects.toMatchObject({ errorName: 'CORRUPT_RECORD_EXCEPTION' })
    await expect(lookuper.lookup([3])).rejects.toMatchObject({
      errorName: 'SCHEMA_NOT_EXIST',
      message: expect.stringContaining('schema 7'),
    })
  })

  it('fails lookups still queued when the connection closes', async () => {
    const { connection, table } = await setup({ config: { 'client.lookup.batch-timeout': '30s' } })
    const pending = table.newLookup().createLookuper().lookup([1])
    await connection.close()
    await expect(pending).rejects.toMatchObject({ errorName: 'NETWORK_EXCEPTION' })
  })
})

const prefixSchema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.INT())
  .column('v', DataTypes.STRING())
  .primaryKey('a', 'b', 'c')
  .build()

describe('prefix lookups', () => {
  it('returns every row whose key starts with the bucket key, in key order', async () => {
    const descriptor = TableDescriptor.builder().schema(prefixSchema).distributedBy(3, 'a', 'b').build()
    const { cluster, table } = await setup({ descriptor })
    await upsertAll(table, [
      [1, 'x', 2, 'x2'],
      [1, 'x', 1, 'x1'],
      [1, 'y', 1, 'y1'],
      [2, 'x', 1, 'other'],
    ])
    const lookuper = table.newLookup().lookupBy(['a', 'b']).createLookuper()
    const [x, y, none] = await Promise.all([
      lookuper.lookup([1, 'x']),
      lookuper.lookup({ a: 1, b: 'y' }),
      lookuper.lookup([3, 'x']),
    ])
    expect(x.rows()).toEqual([
      [1, 'x', 1, 'x1'],
      [1, 'x', 2, 'x2'],
    ])
    expect(() => x.singletonRow()).toThrow(/found 2 rows/)
    expect(y.rows()).toEqual([[1, 'y', 1, 'y1']])
    expect(none.rows()).toEqual([])
    expect(cluster.kvRequests.lookups.map(r => r.api)).toEqual(['PREFIX_LOOKUP'])
    const prefix = CompactedKeyEncoder.of(prefixSchema.rowType, ['a', 'b']).encodeKey([1, 'x', null, null])
    const sent = cluster.kvRequests.lookups[0].buckets.flatMap(b => b.keys)
    expect(sent.some(k => k.equals(prefix))).toBe(true)
  })

  it('looks up partitioned tables; a missing partition finds nothing and sends nothing', async () => {
    const partitioned = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('c', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .column('v', DataTypes.STRING())
      .primaryKey('a', 'c', 'dt')
      .build()
    const descriptor = TableDescriptor.builder()
      .schema(partitioned)
      .partitionedBy('dt')
      .distributedBy(2, 'a')
      .build()
    const { cluster, table } = await setup({ descriptor })
    await upsertAll(table, [
      [1, 1, '2024-01-01', 'p1'],
      [1, 2, '2024-01-01', 'p2'],
      [1, 1, '2024-01-02', 'q1'],
    ])
    const byKey = table.newLookup().createLookuper()
    expect((await byKey.lookup([1, 2, '2024-01-01'])).singletonRow()).toEqual([1, 2, '2024-01-01', 'p2'])
    const byPrefix = table.newLookup().lookupBy(['dt', 'a']).createLookuper()
    expect((await byPrefix.lookup(['2024-01-02', 1])).rows()).toEqual([[1, 1, '2024-01-02', 'q1']])
    const sentBefore = cluster.kvRequests.lookups.length
    expect((await byKey.lookup([1, 1, '2030-01-01'])).singletonRow()).toBeNull()
    expect((await byPrefix.lookup(['2030-01-01', 1])).rows()).toEqual([])
    expect(cluster.kvRequests.lookups.length).toBe(sentBefore)
  })
})

describe('Lookup validation', () => {
  async function tableWith(descriptor: TableDescriptor) {
    return (await setup({ descriptor })).table
  }

  it('refuses lookups on a log table with NON_PRIMARY_KEY_TABLE_EXCEPTION', async () => {
    const log = Schema.newBuilder().column('id', DataTypes.INT()).build()
    const table = await tableWith(TableDescriptor.builder().schema(log).distributedBy(1).build())
    expect(() => table.newLookup().createLookuper()).toThrow(
      expect.objectContaining({
        errorName: 'NON_PRIMARY_KEY_TABLE_EXCEPTION',
        message: "Log table fluss.pk doesn't support lookup",
      }),
    )
  })

  it('sends lookupBy of the whole primary key to primary key lookups', async () => {
    const table = await tableWith(
      TableDescriptor.builder().schema(prefixSchema).distributedBy(1, 'a').build(),
    )
    expect(() => table.newLookup().lookupBy(['c', 'b', 'a']).createLookuper()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message:
          "Can not perform prefix lookup on table 'fluss.pk', because the lookup columns [c, b, a] equals the physical primary keys [a, b, c]. Please use primary key lookup (Lookuper without lookupBy) instead.",
      }),
    )
  })

  it('requires exactly the bucket key columns, in order', async () => {
    const table = await tableWith(
      TableDescriptor.builder().schema(prefixSchema).distributedBy(1, 'a', 'b').build(),
    )
    expect(() => table.newLookup().lookupBy(['b', 'a']).createLookuper()).toThrow(
      "Can not perform prefix lookup on table 'fluss.pk', because the lookup columns [b, a] must contain all bucket keys [a, b] in order.",
    )
    expect(() => table.newLookup().lookupBy(['a']).createLookuper()).toThrow(
      /must contain all bucket keys \[a, b\]/,
    )
  })

  it('requires a bucket key that is a prefix of the physical primary key', async () => {
    const table = await tableWith(
      TableDescriptor.builder().schema(prefixSchema).distributedBy(1, 'b').build(),
    )
    expect(() => table.newLookup().lookupBy(['b']).createLookuper()).toThrow(
      "Can not perform prefix lookup on table 'fluss.pk', because the bucket keys [b] is not a prefix subset of the physical primary keys [a, b, c] (excluded partition fields if present).",
    )
  })

  it('requires the partition columns in a prefix lookup of a partitioned table', async () => {
    const partitioned = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('c', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .primaryKey('a', 'c', 'dt')
      .build()
    const descriptor = TableDescriptor.builder()
      .schema(partitioned)
      .partitionedBy('dt')
      .distributedBy(1, 'a')
      .build()
    const table = await tableWith(descriptor)
    expect(() => table.newLookup().lookupBy(['a']).createLookuper()).toThrow(
      "Can not perform prefix lookup on table 'fluss.pk', because the lookup columns [a] must contain all partition fields [dt].",
    )
  })

  it('rejects unknown lookup columns', async () => {
    const table = await tableWith(
      TableDescriptor.builder().schema(prefixSchema).distributedBy(1, 'a').build(),
    )
    expect(() => table.newLookup().lookupBy(['a', 'zz']).createLookuper()).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST', message: expect.stringContaining('[zz]') }),
    )
  })
})
