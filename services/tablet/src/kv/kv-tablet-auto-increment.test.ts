import { Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { autoIncrementKey, MemoryMetaStore } from '@sluice/core/metastore'
import { decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { AutoIncrementIds, autoIncrementColumn, metaStoreAutoIncrementIds } from './auto-increment-ids.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('k', notNull(DataTypes.STRING()))
  .column('uid', DataTypes.BIGINT())
  .column('v', DataTypes.STRING())
  .primaryKey('k')
  .enableAutoIncrement('uid')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)
const NOT_UID = { targetColumns: [0, 2] }

function tableInfo(cacheSize: number, s = schema): TableInfo {
  const descriptor = TableDescriptor.builder()
    .schema(s)
    .distributedBy(2)
    .property('table.auto-increment.cache-size', String(cacheSize))
    .build()
  return TableInfo.of(tablePath('db', 't'), 7, 1, descriptor, 0, 0)
}

const buckets: TestingKvBucket[] = []
afterEach(async () => {
  for (const b of buckets.splice(0)) await b.close()
})

async function open(ids: AutoIncrementIds | undefined): Promise<TestingKvBucket> {
  const bucket = await TestingKvBucket.open(schema, {}, ids === undefined ? {} : { autoIncrementIds: ids })
  buckets.push(bucket)
  return bucket
}

async function uidOf(bucket: TestingKvBucket, key: string): Promise<unknown> {
  await bucket.acknowledge()
  const [value] = await bucket.kv.lookup([kv.key([key, null, null])])
  return value === null ? undefined : decodeCompactedRow(decodeValue(value).row, schema.rowType)[1]
}

describe('auto-increment columns', () => {
  it('assigns ids on insert only and refuses target columns that include it (or none)', async () => {
    const store = new MemoryMetaStore()
    const bucket = await open(metaStoreAutoIncrementIds(store, tableInfo(100)) ?? undefined)
    await bucket.kv.putAsLeader(
      kv.batch([
        ['a', null, 'x'],
        ['b', null, 'y'],
        ['a', null, 'z'],
      ]),
      NOT_UID,
    )
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', ['a', 1n, 'x']],
      [1, '+I', ['b', 2n, 'y']],
      [2, '-U', ['a', 1n, 'x']],
      [3, '+U', ['a', 1n, 'z']],
    ])
    await expect(bucket.kv.putAsLeader(kv.batch([['c', 5n, 'q']]))).rejects.toMatchObject({
      errorName: 'INVALID_TARGET_COLUMN',
      message:
        'The table contains an auto-increment column [uid], but update target columns are not explicitly specified. Please specify the update target columns and exclude the auto-increment column from them.',
    })
    await expect(
      bucket.kv.putAsLeader(kv.batch([['c', 5n, 'q']]), { targetColumns: [0, 1] }),
    ).rejects.toMatchObject({
      message: 'Auto-increment column [uid] at index 1 must not be included in target columns.',
    })
  })

  it('gives each bucket its own ranges of the table counter, and every opening new ones', async () => {
    const store = new MemoryMetaStore()
    const info = tableInfo(2)
    const b0 = await open(metaStoreAutoIncrementIds(store, info) ?? undefined)
    const b1 = await open(metaStoreAutoIncrementIds(store, info) ?? undefined)
    await b0.kv.putAsLeader(kv.batch([['a', null, '']]), NOT_UID)
    await b1.kv.putAsLeader(
      kv.batch([
        ['b', null, ''],
        ['c', null, ''],
        ['d', null, ''],
      ]),
      NOT_UID,
    )
    await b0.kv.putAsLeader(
      kv.batch([
        ['e', null, ''],
        ['a', null, 'again'],
      ]),
      NOT_UID,
    )
    expect(await Promise.all(['a', 'e'].map(k => uidOf(b0, k)))).toEqual([1n, 2n])
    expect(await Promise.all(['b', 'c', 'd'].map(k => uidOf(b1, k)))).toEqual([3n, 4n, 5n])
    // A reopened bucket (restart, or a new leader) skips what is left of its former range (6).
    await b1.reopenKv({ autoIncrementIds: metaStoreAutoIncrementIds(store, info) ?? undefined })
    await b1.kv.putAsLeader(kv.batch([['f', null, '']]), NOT_UID)
    expect(await uidOf(b1, 'f')).toBe(9n)
    const { pk, sk } = autoIncrementKey(7, schema.columnIds[1])
    expect((await store.get(pk, sk))?.value).toEqual({ next: 10 })
  })

  it('assigns ids to the keys an insert-if-not-exists lookup inserts', async () => {
    const bucket = await open(metaStoreAutoIncrementIds(new MemoryMetaStore(), tableInfo(10)) ?? undefined)
    await bucket.kv.putAsLeader(kv.batch([['a', null, 'x']]), NOT_UID)
    await bucket.kv.insertIfNotExists([kv.key(['a', null, null]), kv.key(['n', null, null])])
    expect(await uidOf(bucket, 'a')).toBe(1n)
    expect(await uidOf(bucket, 'n')).toBe(2n)
  })

  it('refuses puts without an id source with a typed error, and writes nothing', async () => {
    const bucket = await open(undefined)
    await expect(bucket.kv.putAsLeader(kv.batch([['a', null, 'x']]), NOT_UID)).rejects.toMatchObject({
      errorName: 'KV_STORAGE_EXCEPTION',
      message: expect.stringContaining('auto-increment column uid needs ids from the metadata store'),
    })
    expect(bucket.log.logEndOffset).toBe(0)
  })

  it("stops at the column type's maximum with Fluss's message", async () => {
    const intSchema = Schema.newBuilder()
      .column('k', notNull(DataTypes.STRING()))
      .column('uid', DataTypes.INT())
      .primaryKey('k')
      .enableAutoIncrement('uid')
      .build()
    const column = autoIncrementColumn(tableInfo(2, intSchema))
    expect(column).toMatchObject({ name: 'uid', maxValue: 2 ** 31 - 1, cacheSize: 2 })
    const ids = new AutoIncrementIds(column as NonNullable<typeof column>, async () => 2 ** 31 - 2)
    await ids.reserve(2)
    expect(ids.next()).toBe(2 ** 31 - 1)
    expect(() => ids.next()).toThrow('Reached maximum value of sequence "<uid>" (2147483647).')
    expect(
      autoIncrementColumn(
        tableInfo(1, Schema.newBuilder().column('k', DataTypes.INT()).primaryKey('k').build()),
      ),
    ).toBeNull()
  })
})
