import { compress as zstdCompress, decompress as zstdDecompress } from '@bokuweb/zstd-wasm'
import { initArrowCodecs, schemaMessage } from '@sluice/core/arrow'
import { AggFunctions, Schema } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import { DataTypes } from '@sluice/core/types'
import { CompressionType, compressionRegistry, tableFromIPC } from 'apache-arrow'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { fixedSchemaSource } from './table-schemas.js'

const v1 = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('total', DataTypes.BIGINT(), AggFunctions.SUM())
  .primaryKey('id')
  .build()
const v2 = Schema.newBuilder()
  .fromSchema(v1)
  .column('note', DataTypes.STRING(), AggFunctions.LISTAGG())
  .build()

/** The schemas of a table at v1; `add(2, v2)` is ALTER TABLE ADD COLUMN. */
const evolvingSchemas = () => fixedSchemaSource(1, v1)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

beforeAll(async () => {
  await initArrowCodecs()
  compressionRegistry.set(CompressionType.ZSTD, {
    encode: data => zstdCompress(data, 3),
    decode: data => zstdDecompress(data),
  })
})

describe('schema evolution (ADD COLUMN last)', () => {
  it('merges rows of old and new schemas and writes the changelog in the latest schema', async () => {
    const schemas = evolvingSchemas()
    bucket = await TestingKvBucket.open(v1, { 'table.merge-engine': 'AGGREGATION' }, { schemas })
    const old = new TestingKvBatches(v1, 1)
    await bucket.kv.putAsLeader(old.batch([[1, 10n]]))
    await bucket.acknowledge()
    schemas.add(2, v2)
    const current = new TestingKvBatches(v2, 2)
    await bucket.kv.putAsLeader(
      old.batch([
        [1, 5n],
        [2, 1n],
      ]),
    )
    await bucket.kv.putAsLeader(
      current.batch([
        [1, 1n, 'x'],
        [1, null, 'y'],
      ]),
    )
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 10n]],
      [1, '-U', [1, 10n, null]],
      [2, '+U', [1, 15n, null]],
      [3, '+I', [2, 1n, null]],
      [4, '-U', [1, 15n, null]],
      [5, '+U', [1, 16n, 'x']],
      [6, '-U', [1, 16n, 'x']],
      [7, '+U', [1, 16n, 'x,y']],
    ])
    // Recovery reads batches of both schema ids.
    await bucket.acknowledge()
    const reopened = await bucket.reopenKv()
    expect(reopened.rowCount).toBe(2)
  })

  it('refuses a batch of a schema newer than the latest', async () => {
    bucket = await TestingKvBucket.open(v1, {}, { schemas: evolvingSchemas() })
    await expect(
      bucket.kv.putAsLeader(new TestingKvBatches(v2, 2).batch([[1, 1n, 'x']])),
    ).rejects.toMatchObject({
      errorName: 'SCHEMA_NOT_EXIST',
    })
  })
})

describe('changelog batches read by an independent Arrow reader', () => {
  it('apache-arrow decodes the ZSTD changelog with the table schema', async () => {
    const schema = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('s', DataTypes.STRING())
      .primaryKey('id')
      .build()
    bucket = await TestingKvBucket.open(schema)
    const kv = new TestingKvBatches(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'one'],
        [2, 'two'],
        [1, 'uno'],
      ]),
    )
    const { records } = await bucket.log.read({
      fetchOffset: 0,
      maxBytes: 1 << 20,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    const [batch] = new MemoryLogRecords(records).validateAll()
    expect([...(batch.changeTypes() ?? [])]).toEqual([1, 1, 2, 3])
    const stream = Buffer.concat([
      schemaMessage(schema.rowType),
      batch.arrowPayload(),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
    ])
    const table = tableFromIPC(stream)
    expect(table.toArray().map(r => [r.id, r.s])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [1, 'one'],
      [1, 'uno'],
    ])
  })
})
