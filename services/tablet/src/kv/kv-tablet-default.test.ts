import { Schema } from '@sluice/core/metadata'
import { decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, readChangelogBatches, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { SMALL_ROCKSDB_OPTIONS } from './rocksdb-kv.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.BIGINT())
  .primaryKey('a')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function stored(key: number): Promise<unknown[] | null> {
  const [value] = await bucket.kv.lookup([kv.key([key, null, null])])
  if (value === null) return null
  const { schemaId, row } = decodeValue(value)
  expect(schemaId).toBe(1)
  return decodeCompactedRow(row, schema.rowType)
}

describe('KvTablet with the default merge engine', () => {
  it('emits +I for new keys and -U/+U for updates, in input order, one batch per put', async () => {
    bucket = await TestingKvBucket.open(schema)
    const first = await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'a', 10n],
        [2, 'b', 20n],
        [1, 'a2', 11n],
      ]),
    )
    expect(first).toEqual({
      firstOffset: 0,
      lastOffset: 3,
      logEndOffset: 4,
      changelogRecords: 4,
      duplicate: false,
    })
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 'a', 10n]],
      [1, '+I', [2, 'b', 20n]],
      [2, '-U', [1, 'a', 10n]],
      [3, '+U', [1, 'a2', 11n]],
    ])
    const batches = await readChangelogBatches(bucket.log, schemas)
    expect(batches.map(b => [b.baseOffset, b.lastOffset, b.schemaId])).toEqual([[0, 3, 1]])
  })

  it('emits -U/+U for an upsert identical to the stored row', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([[1, 'a', 10n]]))
    await bucket.acknowledge()
    await bucket.kv.putAsLeader(kv.batch([[1, 'a', 10n]]))
    expect(await readChangelog(bucket.log, schemas, 1)).toEqual([
      [1, '-U', [1, 'a', 10n]],
      [2, '+U', [1, 'a', 10n]],
    ])
  })

  it('deletes an existing key with -D; a delete of a missing key appends an empty batch of one offset', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([[1, 'a', 10n]]))
    const missing = await bucket.kv.putAsLeader(kv.batch([{ delete: [9, null, null] }]))
    expect(missing).toMatchObject({ firstOffset: 1, lastOffset: 1, logEndOffset: 2, changelogRecords: 0 })
    const removed = await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null] }]))
    expect(removed).toMatchObject({ firstOffset: 2, lastOffset: 2, logEndOffset: 3, changelogRecords: 1 })
    const batches = await readChangelogBatches(bucket.log, schemas)
    expect(batches.map(b => [b.baseOffset, b.lastOffset, b.records.length])).toEqual([
      [0, 0, 1],
      [1, 1, 0],
      [2, 2, 1],
    ])
    expect(batches[2].records).toEqual([{ offset: 2, type: '-D', row: [1, 'a', 10n] }])
    await bucket.acknowledge()
    expect(await stored(1)).toBeNull()
  })

  it('sees its own pending writes when merging, but lookups see only flushed data', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([[1, 'a', 10n]]))
    expect(await stored(1)).toBeNull()
    await bucket.kv.putAsLeader(kv.batch([[1, 'b', 11n]]))
    expect(await readChangelog(bucket.log, schemas, 1)).toEqual([
      [1, '-U', [1, 'a', 10n]],
      [2, '+U', [1, 'b', 11n]],
    ])
    expect(await bucket.kv.flush(1)).toBe(1)
    expect(await stored(1)).toEqual([1, 'a', 10n])
    expect(bucket.kv.pendingWrites).toBe(1)
    expect(await bucket.kv.flush(3)).toBe(3)
    expect(await stored(1)).toEqual([1, 'b', 11n])
    expect(bucket.kv.pendingWrites).toBe(0)
  })

  it('merges correctly while a flush moves the keys it reads into RocksDB', async () => {
    bucket = await TestingKvBucket.open(schema)
    const keys = Array.from({ length: 200 }, (_, i) => i)
    await bucket.kv.putAsLeader(kv.batch(keys.map(k => [k, 'v0', 0n])))
    for (let round = 1; round <= 5; round++) {
      const flushed = bucket.kv.flush(bucket.log.logEndOffset)
      // Fresh keys make the put wait for a RocksDB read, while the flush finishes and drops the
      // buffered entries of the other keys.
      const fresh = Array.from({ length: 200 }, (_, i) => [1000 * round + i, 'fresh', 0n])
      const put = bucket.kv.putAsLeader(
        kv.batch([...fresh, ...keys.map(k => [k, `v${round}`, BigInt(round)])]),
      )
      await Promise.all([flushed, put])
    }
    const changelog = await readChangelog(bucket.log, schemas)
    const updatesOfKey7 = changelog
      .filter(([, , row]) => row[0] === 7)
      .map(([, type, row]) => `${type}${row[1]}`)
    expect(updatesOfKey7).toEqual([
      '+Iv0',
      '-Uv0',
      '+Uv1',
      '-Uv1',
      '+Uv2',
      '-Uv2',
      '+Uv3',
      '-Uv3',
      '+Uv4',
      '-Uv4',
      '+Uv5',
    ])
    await bucket.acknowledge()
    expect(await stored(199)).toEqual([199, 'v5', 5n])
    expect(bucket.kv.rowCount).toBe(1200)
  })

  it('flushes in RocksDB batches of kv.rocksdb.write-batch-size, each with its own flushed offset', async () => {
    bucket = await TestingKvBucket.open(
      schema,
      {},
      { rocksDb: { ...SMALL_ROCKSDB_OPTIONS, writeBatchBytes: 1 } },
    )
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'a', 1n],
        [2, 'b', 2n],
        [3, 'c', 3n],
      ]),
    )
    expect(await bucket.kv.flush(3)).toBe(3)
    expect(await stored(3)).toEqual([3, 'c', 3n])
    const reopened = await bucket.reopenKv()
    expect([reopened.flushedOffset, reopened.rowCount, reopened.pendingWrites]).toEqual([3, 3, 0])
  })

  it('writes the changelog in the table compression and keeps the writer id and sequence', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.log.arrow.compression.type': 'LZ4_FRAME' })
    await bucket.kv.putAsLeader(kv.batch([[1, 'x', 1n]], { writerId: 7n, batchSequence: 0 }))
    const [batch] = await readChangelogBatches(bucket.log, schemas)
    expect([batch.writerId, batch.batchSequence]).toEqual([7, 0])
    expect(batch.records.map(r => r.row)).toEqual([[1, 'x', 1n]])
  })

  it('refuses NOT NULL violations', async () => {
    const strict = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('b', notNull(DataTypes.STRING()))
      .primaryKey('a')
      .build()
    bucket = await TestingKvBucket.open(strict)
    const batches = new TestingKvBatches(nullableCopy(strict), 1, ['a'])
    await expect(bucket.kv.putAsLeader(batches.batch([[1, null]]))).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    })
    expect(bucket.log.logEndOffset).toBe(0)
  })
})

/** A schema with the same columns but nullable, to encode rows a strict schema forbids. */
function nullableCopy(strict: Schema): Schema {
  const builder = Schema.newBuilder()
  for (const c of strict.columns) builder.column(c.name, { ...c.type, nullable: true })
  return builder.build()
}
