import { bucketForKey } from '@sluice/core/bucketing'
import { FlussError } from '@sluice/core/errors'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { CompactedKeyEncoder, CompactedRowEncoder } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import { waitUntil } from '../testing/fake-cluster.js'
import type { RecordedPutKv } from '../testing/fake-kv-handlers.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .column('score', DataTypes.BIGINT())
  .primaryKey('id')
  .build()
const path = { databaseName: 'fluss', tableName: 'pk' }

async function setup(
  options: {
    buckets?: number
    tabletServers?: number
    config?: Record<string, string | number>
    descriptor?: TableDescriptor
  } = {},
) {
  const { cluster, connection } = await startClient(cleanups, options)
  const descriptor =
    options.descriptor ??
    TableDescriptor.builder()
      .schema(schema)
      .distributedBy(options.buckets ?? 1)
      .build()
  const { table, tableId } = await createTable(connection, path, descriptor)
  return { cluster, connection, table, tableId, store: (bucket = 0) => cluster.state.kv(tableId, bucket) }
}

/** The records of every batch of a recorded PUT_KV, decoded. */
function batchesOf(request: RecordedPutKv) {
  return request.buckets.map(b => {
    const batch = KvRecordBatch.from(b.records)
    return {
      bucket: b.bucketId,
      partitionId: b.partitionId,
      schemaId: batch.schemaId,
      writerId: batch.writerId,
      batchSequence: batch.batchSequence,
      records: [...batch].map(r => ({
        key: Buffer.from(r.key),
        row: r.row === null ? null : Buffer.from(r.row),
      })),
    }
  })
}

const keyOf = (id: number) => CompactedKeyEncoder.of(schema.rowType, ['id']).encodeKey([id, null, null])
const encodedRow = (row: unknown[]) => new CompactedRowEncoder(schema.rowType).encode(row as never)

describe('UpsertWriter', () => {
  it('sends upserts and deletes as one KV batch: keys, values, writer id and sequence', async () => {
    const { cluster, table, store } = await setup()
    const writer = table.newUpsert().createWriter()
    writer.upsert([1, 'a', 10n])
    writer.upsert({ id: 2, name: 'b' })
    writer.delete({ id: 1 })
    await writer.flush()

    expect(cluster.kvRequests.putKv).toHaveLength(1)
    const request = cluster.kvRequests.putKv[0]
    expect(request).toMatchObject({ acks: -1, targetColumns: [], aggMode: 0, timeoutMs: 30_000 })
    expect(batchesOf(request)).toEqual([
      {
        bucket: 0,
        partitionId: null,
        schemaId: 1,
        writerId: 1n,
        batchSequence: 0,
        records: [
          { key: keyOf(1), row: encodedRow([1, 'a', 10n]) },
          { key: keyOf(2), row: encodedRow([2, 'b', null]) },
          { key: keyOf(1), row: null },
        ],
      },
    ])
    expect(keyOf(1)).toEqual(Buffer.from([0x01]))
    expect(store().rows()).toEqual([[2, 'b', null]])

    writer.upsert([3, 'c', 3n])
    await writer.flush()
    expect(batchesOf(cluster.kvRequests.putKv[1])[0]).toMatchObject({ writerId: 1n, batchSequence: 1 })
  })

  it('reports the bucket and the log end offset after each batch', async () => {
    const { table } = await setup()
    const writer = table.newUpsert().createWriter()
    const acknowledged = async <T>(result: Promise<T>): Promise<T> => {
      await writer.flush()
      return result
    }
    expect(await acknowledged(writer.upsertWithResult([1, 'a', 1n]))).toEqual({ bucket: 0, logEndOffset: 1 })
    // An update is -U and +U: two more offsets.
    expect(await acknowledged(writer.upsertWithResult([1, 'b', 2n]))).toEqual({ bucket: 0, logEndOffset: 3 })
    expect(await acknowledged(writer.deleteWithResult([1, null, null]))).toEqual({
      bucket: 0,
      logEndOffset: 4,
    })
    // Deleting a missing key changes nothing, but the empty changelog batch still takes an offset.
    expect(await acknowledged(writer.deleteWithResult({ id: 1 }))).toEqual({ bucket: 0, logEndOffset: 5 })
  })

  it('spreads keys over buckets by the Fluss hash of the encoded bucket key', async () => {
    const { cluster, table, tableId } = await setup({ buckets: 4, tabletServers: 2 })
    const writer = table.newUpsert().createWriter()
    for (let id = 0; id < 40; id++) writer.upsert([id, `n${id}`, BigInt(id)])
    await writer.flush()
    for (let bucket = 0; bucket < 4; bucket++) {
      const ids = cluster.state
        .kv(tableId, bucket)
        .rows()
        .map(r => r[0] as number)
      expect(ids.length).toBeGreaterThan(0)
      for (const id of ids) expect(bucketForKey(keyOf(id), 4)).toBe(bucket)
    }
    // One PUT_KV per leader: buckets 0 and 2 on server 1, 1 and 3 on server 2.
    expect(cluster.kvRequests.putKv.map(r => r.buckets.length).sort()).toEqual([2, 2])
  })

  it('writes a partial update: target columns on the wire, the rest NULL in the value', async () => {
    const { cluster, table, store } = await setup()
    const full = table.newUpsert().createWriter()
    full.upsert([1, 'x', 7n])
    await full.flush()
    const partial = table.newUpsert().partialUpdate(['id', 'score']).createWriter()
    expect(partial.targetColumns).toEqual([0, 2])
    partial.upsert([1, 8n])
    partial.upsert({ id: 2, score: 9n })
    await partial.flush()

    const request = cluster.kvRequests.putKv[1]
    expect(request.targetColumns).toEqual([0, 2])
    expect(batchesOf(request)[0].records).toEqual([
      { key: keyOf(1), row: encodedRow([1, null, 8n]) },
      { key: keyOf(2), row: encodedRow([2, null, 9n]) },
    ])
    expect(store().rows()).toEqual([
      [1, 'x', 8n],
      [2, null, 9n],
    ])

    // A partial delete NULLs the target columns, or removes the row when nothing else is left.
    partial.delete([1, null])
    partial.delete({ id: 2 })
    await partial.flush()
    expect(store().rows()).toEqual([[1, 'x', null]])
    expect(() => partial.upsert([1, 2n, 3])).toThrow(/Row has 3 values, the partial update writes 2 columns/)
    expect(() => partial.upsert({ id: 1, name: 'no' })).toThrow(/Unknown column 'name'/)
  })

  it('writes partitioned tables: partition from the row, key without the partition column', async () => {
    const partitioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('dt', DataTypes.STRING())
      .column('v', DataTypes.STRING())
      .primaryKey('id', 'dt')
      .build()
    const descriptor = TableDescriptor.builder()
      .schema(partitioned)
      .partitionedBy('dt')
      .distributedBy(1)
      .build()
    const { cluster, table, tableId } = await setup({ descriptor })
    const writer = table.newUpsert().createWriter()
    writer.upsert([1, '2024-01-01', 'a'])
    writer.upsert([1, '2024-01-02', 'b'])
    writer.delete({ id: 1, dt: '2024-01-02' })
    await writer.flush()
    const partitions = cluster.state.tables.get('fluss.pk')?.partitions
    expect([...(partitions?.keys() ?? [])].sort()).toEqual(['2024-01-01', '2024-01-02'])
    const first = partitions?.get('2024-01-01') as number
    const second = partitions?.get('2024-01-02') as number
    expect(cluster.state.kv(tableId, 0, first).rows()).toEqual([[1, '2024-01-01', 'a']])
    expect(cluster.state.kv(tableId, 0, second).rows()).toEqual([])
    const sent = cluster.kvRequests.putKv.flatMap(batchesOf)
    expect(sent.every(b => b.records.every(r => r.key.equals(Buffer.from([0x01]))))).toBe(true)
    expect(new Set(sent.map(b => b.partitionId))).toEqual(new Set([first, second]))
  })

  it('re-sends PUT_KV after a disconnect mid-flight without applying a batch twice', async () => {
    const { cluster, table, store } = await setup()
    let dropped = false
    cluster.hooks.afterPutKv = serverId => {
      if (dropped) return
      dropped = true
      cluster.dropConnections(serverId)
    }
    const writer = table.newUpsert().createWriter()
    const results = [writer.upsertWithResult([1, 'a', 1n]), writer.upsertWithResult([2, 'b', 2n])]
    await writer.flush()
    expect(dropped).toBe(true)
    expect(cluster.kvRequests.putKv.length).toBeGreaterThanOrEqual(2)
    const sequences = cluster.kvRequests.putKv.map(r => batchesOf(r)[0].batchSequence)
    expect(new Set(sequences)).toEqual(new Set([0]))
    // Applied once: two inserts, so the log holds exactly offsets 0 and 1 (one batch).
    expect(cluster.state.log(table.getTableInfo().tableId, 0).endOffset).toBe(2)
    expect(store().rows()).toEqual([
      [1, 'a', 1n],
      [2, 'b', 2n],
    ])
    expect((await Promise.all(results)).map(r => r.logEndOffset)).toEqual([2, 2])
  })

  it('retries PUT_KV on the new leader after NOT_LEADER_OR_FOLLOWER', async () => {
    const { cluster, table, tableId, store } = await setup({ tabletServers: 2 })
    const writer = table.newUpsert().createWriter()
    cluster.state.autoPublish = false
    cluster.state.moveLeader(tableId, 0, 2)
    writer.upsert([1, 'a', 1n])
    const flushed = writer.flush()
    await waitUntil(() => cluster.stats.notLeaderAnswers >= 1, 5000, 'a NOT_LEADER answer')
    cluster.state.publishLeaders()
    await flushed
    expect(store().rows()).toEqual([[1, 'a', 1n]])
    const servers = cluster.kvRequests.putKv.map(r => r.serverId)
    expect(servers[0]).toBe(1)
    expect(servers.at(-1)).toBe(2)
  })

  it('fails the flush with the server error when retries are exhausted', async () => {
    const { cluster, table } = await setup({ config: { 'client.writer.retries': 1 } })
    cluster.hooks.beforePutKv = () => {
      throw new FlussError('KV_STORAGE_EXCEPTION', 'rocksdb trouble')
    }
    const errors: string[] = []
    const writer = table.newUpsert().createWriter({ onError: e => errors.push(e.errorName) })
    writer.upsert([1, 'a', 1n])
    await expect(writer.flush()).rejects.toMatchObject({ errorName: 'KV_STORAGE_EXCEPTION' })
    expect(errors).toEqual(['KV_STORAGE_EXCEPTION'])
  })

  it('rejects bad rows at once and buffers nothing', async () => {
    const { table } = await setup()
    const writer = table.newUpsert().createWriter()
    expect(() => writer.upsert([null, 'a', 1n])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST', message: expect.stringContaining("'id'") }),
    )
    expect(() => writer.delete({ name: 'no key' })).toThrow(/'id'/)
    expect(() => writer.upsert([1, 'a'])).toThrow(/Row has 2 values, the table has 3 columns/)
    expect(writer.bufferedBytes).toBe(0)
    await writer.close()
    expect(() => writer.upsert([1, 'a', 1n])).toThrow(/closed/)
  })
})

describe('Upsert validation', () => {
  const strict = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('a', DataTypes.STRING())
    .column('c', notNull(DataTypes.STRING()))
    .primaryKey('id')
    .build()

  async function strictTable() {
    const descriptor = TableDescriptor.builder().schema(strict).distributedBy(1).build()
    return (await setup({ descriptor })).table
  }

  it('refuses upserts to a log table with NON_PRIMARY_KEY_TABLE_EXCEPTION', async () => {
    const { connection } = await startClient(cleanups)
    const log = Schema.newBuilder().column('id', DataTypes.INT()).build()
    const { table } = await createTable(
      connection,
      path,
      TableDescriptor.builder().schema(log).distributedBy(1).build(),
    )
    expect(() => table.newUpsert()).toThrow(
      expect.objectContaining({
        errorName: 'NON_PRIMARY_KEY_TABLE_EXCEPTION',
        message: "Table fluss.pk is not a Primary Key Table and doesn't support UpsertWriter.",
      }),
    )
  })

  it('rejects an unknown target column name', async () => {
    const table = await strictTable()
    expect(() => table.newUpsert().partialUpdate(['id', 'nope'])).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message: 'Can not find target column: nope for table fluss.pk.',
      }),
    )
  })

  it('rejects a target column index outside the table', async () => {
    const table = await strictTable()
    expect(() => table.newUpsert().partialUpdate([0, 3])).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message: 'Invalid target column index: 3 for table fluss.pk. The table only has 3 columns.',
      }),
    )
  })

  it('requires the primary key columns among the target columns', async () => {
    const table = await strictTable()
    expect(() => table.newUpsert().partialUpdate(['a', 'c']).createWriter()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message: 'The target write columns [a, c] must contain the primary key columns [id].',
      }),
    )
  })

  it('requires every non-key column to be nullable for a partial update', async () => {
    const table = await strictTable()
    expect(() => table.newUpsert().partialUpdate(['id', 'c']).createWriter()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message:
          'Partial Update requires all columns except primary key to be nullable, but column c is NOT NULL.',
      }),
    )
  })

  it('rejects a repeated target column and OVERWRITE without a merge engine', async () => {
    const table = await strictTable()
    expect(() => table.newUpsert().partialUpdate(['id', 'a', 'id'])).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message: expect.stringContaining('repeat'),
      }),
    )
    expect(() => table.newUpsert().mergeMode('OVERWRITE').createWriter()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: expect.stringContaining('merge engine'),
      }),
    )
  })

  it('refuses full rows on a table with an auto-increment column', async () => {
    const auto = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('seq', DataTypes.BIGINT())
      .column('v', DataTypes.STRING())
      .primaryKey('id')
      .enableAutoIncrement('seq')
      .build()
    const descriptor = TableDescriptor.builder().schema(auto).distributedBy(1).build()
    const { table } = await setup({ descriptor })
    expect(() => table.newUpsert().createWriter()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TARGET_COLUMN',
        message: expect.stringContaining('auto increment column [seq]'),
      }),
    )
    expect(() => table.newUpsert().partialUpdate(['id', 'seq']).createWriter()).toThrow(
      'Explicitly specifying values for the auto increment column seq is not allowed.',
    )
    expect(table.newUpsert().partialUpdate(['id', 'v']).createWriter().targetColumns).toEqual([0, 2])
  })
})
