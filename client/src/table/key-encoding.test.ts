import { bucketForKey, icebergBucketForKey } from '@sluice/core/bucketing'
import { Schema, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder, IcebergKeyEncoder } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import { bucketKeyEncoder, keyBucketing, tableKeyEncoders } from './key-encoding.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const ICEBERG = { 'table.datalake.format': 'iceberg', 'table.kv.format-version': '2' }

const pkSchema = Schema.newBuilder()
  .column('id', DataTypes.BIGINT())
  .column('name', DataTypes.STRING())
  .primaryKey('id')
  .build()
const prefixSchema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('seq', DataTypes.INT())
  .column('v', DataTypes.STRING())
  .primaryKey('id', 'seq')
  .build()

function descriptor(schema: Schema, properties: Record<string, string>, ...bucketKeys: string[]) {
  return TableDescriptor.builder()
    .schema(schema)
    .distributedBy(4, ...bucketKeys)
    .properties(properties)
    .build()
}

function info(d: TableDescriptor): TableInfo {
  return TableInfo.of({ databaseName: 'db', tableName: 't' }, 1, 1, d, 0, 0)
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe('key encoding selection in the client', () => {
  it('selects Iceberg keys and bucketing for Iceberg lake tables, Fluss otherwise', () => {
    expect(keyBucketing(info(descriptor(pkSchema, ICEBERG)))).toBe(icebergBucketForKey)
    expect(keyBucketing(info(descriptor(pkSchema, {})))).toBe(bucketForKey)
    expect(tableKeyEncoders(info(descriptor(pkSchema, ICEBERG))).key).toBeInstanceOf(IcebergKeyEncoder)
    const prefix = tableKeyEncoders(info(descriptor(prefixSchema, ICEBERG, 'id')))
    expect(prefix.key).toBeInstanceOf(CompactedKeyEncoder)
    expect(prefix.bucketKey).toBeInstanceOf(IcebergKeyEncoder)
    const log = Schema.newBuilder().column('k', DataTypes.STRING()).column('v', DataTypes.INT()).build()
    expect(
      bucketKeyEncoder(info(descriptor(log, ICEBERG, 'k')))
        .encodeKey(['ab', 1])
        .toString('hex'),
    ).toBe('6162')
  })

  it('names the table when its keys cannot be encoded', () => {
    const refused = (message: string) =>
      expect.objectContaining({
        errorName: 'INVALID_CONFIG_EXCEPTION',
        message: expect.stringContaining(message),
      })
    const paimon = info(descriptor(pkSchema, { 'table.datalake.format': 'paimon' }))
    expect(() => keyBucketing(paimon)).toThrow(refused('Keys of db.t cannot be encoded'))
    const composite = info(descriptor(prefixSchema, ICEBERG))
    expect(() => tableKeyEncoders(composite)).toThrow(refused('exactly one field for iceberg format'))
    const log = Schema.newBuilder().column('a', DataTypes.INT()).column('b', DataTypes.INT()).build()
    expect(() => bucketKeyEncoder(info(descriptor(log, ICEBERG, 'a', 'b')))).toThrow(refused('db.t'))
  })

  it('upserts and looks up Iceberg keys in the buckets Iceberg gives them', async () => {
    const { connection, cluster } = await startClient(cleanups, {
      config: { 'client.lookup.batch-timeout': '20ms' },
    })
    const path = { databaseName: 'fluss', tableName: 'lake_pk' }
    const { table } = await createTable(connection, path, descriptor(pkSchema, ICEBERG))
    const writer = table.newUpsert().createWriter()
    for (const i of range(20)) writer.upsert([BigInt(i), `n${i}`])
    await writer.close()
    const lookuper = table.newLookup().createLookuper()
    const found = await Promise.all(range(21).map(i => lookuper.lookup([BigInt(i)])))
    expect(found.map(r => r.singletonRow())).toEqual([...range(20).map(i => [BigInt(i), `n${i}`]), null])
    const encoder = new IcebergKeyEncoder(pkSchema.rowType, ['id'])
    const sent = cluster.kvRequests.lookups.flatMap(l =>
      l.buckets.flatMap(b => b.keys.map(k => [b.bucketId, k] as const)),
    )
    expect(sent.map(([, k]) => k.toString('hex')).sort()).toEqual(
      range(21)
        .map(i => encoder.encodeKey([BigInt(i), null]).toString('hex'))
        .sort(),
    )
    for (const [bucket, key] of sent) expect(icebergBucketForKey(key, 4)).toBe(bucket)
    expect(new Set(cluster.kvRequests.putKv.flatMap(p => p.buckets.map(b => b.bucketId))).size).toBe(4)
  })

  it('prefix-looks up with compact prefixes routed by the Iceberg bucket of the bucket key', async () => {
    const { connection, cluster } = await startClient(cleanups, {
      config: { 'client.lookup.batch-timeout': '20ms' },
    })
    const path = { databaseName: 'fluss', tableName: 'lake_prefix' }
    const { table } = await createTable(connection, path, descriptor(prefixSchema, ICEBERG, 'id'))
    const writer = table.newUpsert().createWriter()
    for (const id of range(6)) for (const seq of [1, 0]) writer.upsert([id, seq, `${id}/${seq}`])
    await writer.close()
    const prefix = table.newLookup().lookupBy(['id']).createLookuper()
    expect((await prefix.lookup([3])).rows()).toEqual([
      [3, 0, '3/0'],
      [3, 1, '3/1'],
    ])
    const [request] = cluster.kvRequests.lookups
    expect(request.api).toBe('PREFIX_LOOKUP')
    const [{ bucketId, keys }] = request.buckets
    expect(keys.map(k => k.toString('hex'))).toEqual(['03'])
    const icebergKey = new IcebergKeyEncoder(prefixSchema.rowType, ['id']).encodeKey([3, null, null])
    expect(bucketId).toBe(icebergBucketForKey(icebergKey, 4))
    const point = table.newLookup().createLookuper()
    expect((await point.lookup([5, 1])).singletonRow()).toEqual([5, 1, '5/1'])
  })
})
