import { AggFunctions, Schema } from '@sluice/core/metadata'
import { Timestamp } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { fixedSchemaSource } from './table-schemas.js'

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

const plain = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .primaryKey('a')
  .build()
const plainKv = new TestingKvBatches(plain)

describe('first_row merge engine', () => {
  it('keeps the first row; later upserts and deletes produce no changelog (empty batches)', async () => {
    bucket = await TestingKvBucket.open(plain, { 'table.merge-engine': 'FIRST_ROW' })
    await bucket.kv.putAsLeader(
      plainKv.batch([
        [1, 'first'],
        [1, 'second'],
        [2, 'x'],
      ]),
    )
    const ignored = await bucket.kv.putAsLeader(plainKv.batch([[1, 'third'], { delete: [2, null] }]))
    expect(ignored).toMatchObject({ firstOffset: 2, lastOffset: 2, changelogRecords: 0 })
    expect(await readChangelog(bucket.log, fixedSchemaSource(1, plain))).toEqual([
      [0, '+I', [1, 'first']],
      [1, '+I', [2, 'x']],
    ])
  })

  it('rejects deletes with DISABLE and ALLOW at open', async () => {
    bucket = await TestingKvBucket.open(plain, {
      'table.merge-engine': 'FIRST_ROW',
      'table.delete.behavior': 'DISABLE',
    })
    await expect(
      bucket.kv.putAsLeader(plainKv.batch([[1, 'a'], { delete: [1, null] }])),
    ).rejects.toMatchObject({
      errorName: 'DELETION_DISABLED_EXCEPTION',
      message:
        "Delete operations are disabled for this table. The table.delete.behavior is set to 'disable'.",
    })
    expect(bucket.log.logEndOffset).toBe(0)
    await bucket.close()
    await expect(
      TestingKvBucket.open(plain, { 'table.merge-engine': 'FIRST_ROW', 'table.delete.behavior': 'ALLOW' }),
    ).rejects.toThrow('DELETE is not supported for the first_row merge engine.')
  })
})

describe('versioned merge engine', () => {
  const cases = [
    ['INT', DataTypes.INT(), 5, 3, 7],
    ['BIGINT', DataTypes.BIGINT(), 5n, 3n, 7n],
    ['TIMESTAMP', DataTypes.TIMESTAMP(6), new Timestamp(5, 1000), new Timestamp(5, 0), new Timestamp(7)],
    ['TIMESTAMP_LTZ', DataTypes.TIMESTAMP_LTZ(3), new Timestamp(5), new Timestamp(3), new Timestamp(7)],
  ] as const
  it.each(cases)(
    'with a %s version: lower ignored, equal and higher replace, NULL is the minimum',
    async (_n, type, v, lower, higher) => {
      const schema = Schema.newBuilder()
        .column('a', DataTypes.INT())
        .column('v', type)
        .column('s', DataTypes.STRING())
        .primaryKey('a')
        .build()
      const kv = new TestingKvBatches(schema)
      bucket = await TestingKvBucket.open(schema, {
        'table.merge-engine': 'VERSIONED',
        'table.merge-engine.versioned.ver-column': 'v',
      })
      await bucket.kv.putAsLeader(
        kv.batch([
          [1, v, 'v'],
          [1, lower, 'lower'],
          [1, v, 'equal'],
          [1, null, 'null'],
          [1, higher, 'higher'],
        ]),
      )
      await bucket.kv.putAsLeader(
        kv.batch([
          [2, null, 'n1'],
          [2, null, 'n2'],
          [2, lower, 'real'],
          [2, null, 'n3'],
        ]),
      )
      expect(await readChangelog(bucket.log, fixedSchemaSource(1, schema))).toEqual([
        [0, '+I', [1, v, 'v']],
        [1, '-U', [1, v, 'v']],
        [2, '+U', [1, v, 'equal']],
        [3, '-U', [1, v, 'equal']],
        [4, '+U', [1, higher, 'higher']],
        [5, '+I', [2, null, 'n1']],
        [6, '-U', [2, null, 'n1']],
        [7, '+U', [2, null, 'n2']],
        [8, '-U', [2, null, 'n2']],
        [9, '+U', [2, lower, 'real']],
      ])
    },
  )
})

describe('aggregation merge engine', () => {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('total', DataTypes.BIGINT(), AggFunctions.SUM())
    .column('hi', DataTypes.INT(), AggFunctions.MAX())
    .column('tags', DataTypes.STRING(), AggFunctions.LISTAGG(';'))
    .column('last', DataTypes.STRING())
    .primaryKey('id')
    .build()
  const kv = new TestingKvBatches(schema)
  const changelog = () => readChangelog(bucket.log, fixedSchemaSource(1, schema))

  it('aggregates per column (default last_value_ignore_nulls) and always emits -U/+U', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.merge-engine': 'AGGREGATION' })
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 10n, 5, 'a', 'x'],
        [1, 5n, 3, null, null],
        [1, null, null, 'b', 'y'],
      ]),
    )
    await bucket.kv.putAsLeader(kv.batch([[1, 0n, 0, null, null], { delete: [1, null, null, null, null] }]))
    expect(await changelog()).toEqual([
      [0, '+I', [1, 10n, 5, 'a', 'x']],
      [1, '-U', [1, 10n, 5, 'a', 'x']],
      [2, '+U', [1, 15n, 5, 'a', 'x']],
      [3, '-U', [1, 15n, 5, 'a', 'x']],
      [4, '+U', [1, 15n, 5, 'a;b', 'y']],
      [5, '-U', [1, 15n, 5, 'a;b', 'y']],
      [6, '+U', [1, 15n, 5, 'a;b', 'y']],
    ])
  })

  it('partial aggregation aggregates only target columns; ALLOW deletes clear them or remove the row', async () => {
    bucket = await TestingKvBucket.open(schema, {
      'table.merge-engine': 'AGGREGATION',
      'table.delete.behavior': 'ALLOW',
    })
    await bucket.kv.putAsLeader(kv.batch([[1, 10n, 5, 'a', 'x']]))
    await bucket.kv.putAsLeader(kv.batch([[1, 7n, 100, 'ignored', 'ignored']]), { targetColumns: [0, 1] })
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null, null, null] }]), {
      targetColumns: [0, 1, 2],
    })
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null, null, null] }]), {
      targetColumns: [0, 3, 4],
    })
    await bucket.kv.putAsLeader(kv.batch([[2, 1n, 1, 'z', 'z'], { delete: [2, null, null, null, null] }]))
    expect(await changelog()).toEqual([
      [0, '+I', [1, 10n, 5, 'a', 'x']],
      [1, '-U', [1, 10n, 5, 'a', 'x']],
      [2, '+U', [1, 17n, 5, 'a', 'x']],
      [3, '-U', [1, 17n, 5, 'a', 'x']],
      [4, '+U', [1, null, null, 'a', 'x']],
      [5, '-D', [1, null, null, 'a', 'x']],
      [6, '+I', [2, 1n, 1, 'z', 'z']],
      [7, '-D', [2, 1n, 1, 'z', 'z']],
    ])
  })

  it('refuses partial aggregation without the primary key', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.merge-engine': 'AGGREGATION' })
    await expect(
      bucket.kv.putAsLeader(kv.batch([[1, 1n, 1, 'a', 'b']]), { targetColumns: [1] }),
    ).rejects.toMatchObject({
      errorName: 'INVALID_TARGET_COLUMN',
      message: 'The target write columns must contain the primary key columns [id].',
    })
  })

  it('OVERWRITE mode (agg_mode 1) bypasses the merge engine and allows deletes', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.merge-engine': 'AGGREGATION' })
    await bucket.kv.putAsLeader(kv.batch([[1, 10n, 5, 'a', 'x']]))
    await bucket.kv.putAsLeader(kv.batch([[1, 3n, 1, 'b', null]]), { aggMode: 1 })
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null, null, null] }]), { aggMode: 1 })
    expect(await changelog()).toEqual([
      [0, '+I', [1, 10n, 5, 'a', 'x']],
      [1, '-U', [1, 10n, 5, 'a', 'x']],
      [2, '+U', [1, 3n, 1, 'b', null]],
      [3, '-D', [1, 3n, 1, 'b', null]],
    ])
  })
})

describe('changelog image and delete behavior', () => {
  it('WAL image: whole-row upserts are +U without reading old values, deletes stay -D', async () => {
    bucket = await TestingKvBucket.open(plain, { 'table.changelog.image': 'WAL' })
    await bucket.kv.putAsLeader(
      plainKv.batch([[1, 'a'], [1, 'b'], { delete: [1, null] }, { delete: [5, null] }]),
    )
    expect(await readChangelog(bucket.log, fixedSchemaSource(1, plain))).toEqual([
      [0, '+U', [1, 'a']],
      [1, '+U', [1, 'b']],
      [2, '-D', [1, 'b']],
    ])
    expect(bucket.kv.rowCount).toBe(-1)
  })

  it('IGNORE drops deletes silently; DISABLE refuses the whole batch', async () => {
    bucket = await TestingKvBucket.open(plain, { 'table.delete.behavior': 'IGNORE' })
    await bucket.kv.putAsLeader(plainKv.batch([[1, 'a'], { delete: [1, null] }]))
    expect(await readChangelog(bucket.log, fixedSchemaSource(1, plain))).toEqual([[0, '+I', [1, 'a']]])
    await bucket.close()
    bucket = await TestingKvBucket.open(plain, { 'table.delete.behavior': 'DISABLE' })
    await expect(
      bucket.kv.putAsLeader(plainKv.batch([[1, 'a'], { delete: [1, null] }])),
    ).rejects.toMatchObject({
      errorName: 'DELETION_DISABLED_EXCEPTION',
    })
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual([0, 0])
  })

  it('counts rows with the FULL image as they are flushed', async () => {
    bucket = await TestingKvBucket.open(plain)
    await bucket.kv.putAsLeader(
      plainKv.batch([[1, 'a'], [2, 'b'], [1, 'c'], { delete: [2, null] }, [3, 'd']]),
    )
    expect(bucket.kv.rowCount).toBe(0)
    await bucket.acknowledge()
    expect(bucket.kv.rowCount).toBe(2)
  })
})
