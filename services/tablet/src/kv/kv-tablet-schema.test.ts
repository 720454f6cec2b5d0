import { compress as zstdCompress, decompress as zstdDecompress } from '@bokuweb/zstd-wasm'
import { initArrowCodecs, schemaMessage } from '@sluice/core/arrow'
import { AggFunctions, applySchemaChanges, Schema, TableDescriptor } from '@sluice/core/metadata'
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

describe('schema evolution beyond Fluss: drop, rename, widen', () => {
  const base = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('a', DataTypes.INT())
    .column('b', DataTypes.STRING())
    .column('c', DataTypes.FLOAT())
    .primaryKey('id')
    .build()
  const table = TableDescriptor.builder().schema(base).distributedBy(1).build()
  const evolved = applySchemaChanges(table, [
    { kind: 'add', name: 'd', dataType: DataTypes.STRING() },
    { kind: 'drop', name: 'b' },
    { kind: 'rename', name: 'a', newName: 'aa' },
    { kind: 'modify', name: 'aa', dataType: DataTypes.BIGINT() },
    { kind: 'modify', name: 'c', dataType: DataTypes.DOUBLE() },
  ])?.schema as Schema

  it('maps old writers, old stored values and partial updates to the latest schema by column id', async () => {
    const schemas = fixedSchemaSource(1, base)
    bucket = await TestingKvBucket.open(base, {}, { schemas })
    const old = new TestingKvBatches(base, 1)
    await bucket.kv.putAsLeader(old.batch([[1, 10, 'gone', 0.5]]))
    await bucket.acknowledge()
    schemas.add(2, evolved)
    const current = new TestingKvBatches(evolved, 2)
    // A writer of the old schema, then one of the new schema updating the old row.
    await bucket.kv.putAsLeader(old.batch([[2, 5, 'x', 1.5]]))
    await bucket.kv.putAsLeader(current.batch([[1, 100n, 2.5, 'new']]))
    // An old writer's partial update of [id, b, a]: b no longer exists, a is aa (column id 1).
    await bucket.kv.putAsLeader(old.batch([[2, 6, 'ignored', null]]), { targetColumns: [0, 2, 1] })
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 10, 'gone', 0.5]],
      [1, '+I', [2, 5n, 1.5, null]],
      [2, '-U', [1, 10n, 0.5, null]],
      [3, '+U', [1, 100n, 2.5, 'new']],
      [4, '-U', [2, 5n, 1.5, null]],
      [5, '+U', [2, 6n, 1.5, null]],
    ])
    await bucket.acknowledge()
    const values = await bucket.kv.lookup([
      current.key([1, null, null, null]),
      current.key([2, null, null, null]),
    ])
    expect(values.map(v => v?.readInt16LE(0))).toEqual([2, 2])
    // Recovery replays batches of both schema ids into the same rows.
    await bucket.reopenKv()
    expect(bucket.kv.rowCount).toBe(2)
  })

  it('reads old stored values without rewriting them until a put changes them', async () => {
    const schemas = fixedSchemaSource(1, base)
    bucket = await TestingKvBucket.open(base, { 'table.merge-engine': 'first_row' }, { schemas })
    const old = new TestingKvBatches(base, 1)
    await bucket.kv.putAsLeader(old.batch([[1, 10, 'kept', 0.5]]))
    await bucket.acknowledge()
    schemas.add(2, evolved)
    // first_row keeps the stored row: no changelog, and the stored value stays in schema 1.
    await bucket.kv.putAsLeader(new TestingKvBatches(evolved, 2).batch([[1, 1n, 1, 'x']]))
    await bucket.acknowledge()
    const [value] = await bucket.kv.lookup([old.key([1, null, null, null])])
    expect(value?.readInt16LE(0)).toBe(1)
    expect((await readChangelog(bucket.log, schemas)).length).toBe(1)
  })

  it('follows a renamed and widened version column of the versioned merge engine', async () => {
    const versioned = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('ver', DataTypes.INT())
      .column('v', DataTypes.STRING())
      .primaryKey('id')
      .build()
    const d = TableDescriptor.builder()
      .schema(versioned)
      .distributedBy(1)
      .properties({ 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'ver' })
      .build()
    const next = applySchemaChanges(d, [
      { kind: 'rename', name: 'ver', newName: 'version' },
      { kind: 'modify', name: 'version', dataType: DataTypes.BIGINT() },
    ]) as TableDescriptor
    const schemas = fixedSchemaSource(1, versioned)
    bucket = await TestingKvBucket.open(versioned, d.properties, { schemas, tableSchemaId: 1 })
    const old = new TestingKvBatches(versioned, 1)
    await bucket.kv.putAsLeader(old.batch([[1, 5, 'five']]))
    schemas.add(2, next.schema)
    const current = new TestingKvBatches(next.schema, 2)
    await bucket.kv.putAsLeader(current.batch([[1, 4n, 'older']]))
    await bucket.kv.putAsLeader(old.batch([[1, 6, 'six']]))
    await bucket.kv.putAsLeader(current.batch([[1, 7n, 'seven']]))
    const rows = (await readChangelog(bucket.log, schemas)).map(([, type, row]) => `${type}${row[2]}`)
    expect(rows).toEqual(['+Ifive', '-Ufive', '+Usix', '-Usix', '+Useven'])
  })
})
