import { Schema } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.STRING())
  .primaryKey('a')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function changelogFrom(offset: number) {
  return readChangelog(bucket.log, schemas, offset)
}

describe('partial updates (default merge engine)', () => {
  it('follows Fluss: insert with NULLs, update target columns, PK-only no-op, partial deletes', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, null, null],
        [2, null, null],
        [2, null, null],
      ]),
      { targetColumns: [0] },
    )
    expect(await changelogFrom(0)).toEqual([
      [0, '+I', [1, null, null]],
      [1, '+I', [2, null, null]],
    ])

    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'v11', null],
        [2, 'v21', null],
        [2, 'v23', null],
      ]),
      { targetColumns: [0, 1] },
    )
    expect(await changelogFrom(2)).toEqual([
      [2, '-U', [1, null, null]],
      [3, '+U', [1, 'v11', null]],
      [4, '-U', [2, null, null]],
      [5, '+U', [2, 'v21', null]],
      [6, '-U', [2, 'v21', null]],
      [7, '+U', [2, 'v23', null]],
    ])

    await bucket.kv.putAsLeader(
      kv.batch([
        [1, null, 'c3'],
        [3, null, 'v211'],
      ]),
      { targetColumns: [0, 2] },
    )
    expect(await changelogFrom(8)).toEqual([
      [8, '-U', [1, 'v11', null]],
      [9, '+U', [1, 'v11', 'c3']],
      [10, '+I', [3, null, 'v211']],
    ])

    // Partial delete of b: c is not NULL, so only b is cleared.
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null] }]), { targetColumns: [0, 1] })
    expect(await changelogFrom(11)).toEqual([
      [11, '-U', [1, 'v11', 'c3']],
      [12, '+U', [1, null, 'c3']],
    ])
    // Partial delete of c: every other column is NULL now, so the row goes.
    await bucket.kv.putAsLeader(kv.batch([{ delete: [1, null, null] }]), { targetColumns: [0, 2] })
    expect(await changelogFrom(13)).toEqual([[13, '-D', [1, null, 'c3']]])
  })

  it('keeps non-target columns of the stored row (first insert a+b, then a+c)', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([[1, 'v1', 'ignored']]), { targetColumns: [0, 1] })
    await bucket.acknowledge()
    await bucket.kv.putAsLeader(kv.batch([[1, 'ignored2', 'c1']]), { targetColumns: [0, 2] })
    expect(await changelogFrom(0)).toEqual([
      [0, '+I', [1, 'v1', null]],
      [1, '-U', [1, 'v1', null]],
      [2, '+U', [1, 'v1', 'c1']],
    ])
  })

  it('a primary-key-only update of an existing key changes nothing and appends an empty batch', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([[1, 'x', 'y']]))
    const result = await bucket.kv.putAsLeader(kv.batch([[1, null, null]]), { targetColumns: [0] })
    expect(result).toMatchObject({ firstOffset: 1, lastOffset: 1, changelogRecords: 0 })
    expect(await changelogFrom(0)).toEqual([[0, '+I', [1, 'x', 'y']]])
  })

  it('refuses target columns without the primary key, with Fluss message, and writes nothing', async () => {
    bucket = await TestingKvBucket.open(schema)
    await expect(
      bucket.kv.putAsLeader(kv.batch([[1, null, null]]), { targetColumns: [1, 2] }),
    ).rejects.toMatchObject({
      errorName: 'INVALID_TARGET_COLUMN',
      message: 'The target write columns [b, c] must contain the primary key columns [a].',
    })
    expect(bucket.log.logEndOffset).toBe(0)
  })

  it('refuses a partial update when a non-key column is NOT NULL', async () => {
    const strict = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('b', DataTypes.STRING())
      .column('c', notNull(DataTypes.STRING()))
      .primaryKey('a')
      .build()
    bucket = await TestingKvBucket.open(strict)
    const batches = new TestingKvBatches(strict)
    for (const targetColumns of [
      [0, 1],
      [0, 2],
    ]) {
      await expect(
        bucket.kv.putAsLeader(batches.batch([[1, null, 'str']]), { targetColumns }),
      ).rejects.toMatchObject({
        errorName: 'INVALID_TARGET_COLUMN',
        message:
          'Partial Update requires all columns except primary key to be nullable, but column c is NOT NULL.',
      })
    }
    await expect(
      bucket.kv.putAsLeader(batches.batch([[1, null, 'str']]), { targetColumns: [0, 7] }),
    ).rejects.toMatchObject({
      errorName: 'INVALID_TARGET_COLUMN',
    })
    expect(bucket.log.logEndOffset).toBe(0)
  })

  it('refuses partial updates on first_row and versioned tables with Fluss messages', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.merge-engine': 'FIRST_ROW' })
    await expect(
      bucket.kv.putAsLeader(kv.batch([[1, 'x', null]]), { targetColumns: [0, 1] }),
    ).rejects.toThrow('Partial update is not supported for the first_row merge engine.')
    await bucket.close()
    const versioned = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('v', DataTypes.INT())
      .primaryKey('a')
      .build()
    bucket = await TestingKvBucket.open(versioned, {
      'table.merge-engine': 'VERSIONED',
      'table.merge-engine.versioned.ver-column': 'v',
    })
    await expect(
      bucket.kv.putAsLeader(new TestingKvBatches(versioned).batch([[1, 1]]), { targetColumns: [0, 1] }),
    ).rejects.toThrow('Partial update is not supported for the versioned merge engine.')
    expect(bucket.log.logEndOffset).toBe(0)
  })

  it('partial updates with the WAL image log +I for new keys and only +U for updates', async () => {
    bucket = await TestingKvBucket.open(schema, { 'table.changelog.image': 'WAL' })
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'b', null],
        [1, 'b2', null],
      ]),
      { targetColumns: [0, 1] },
    )
    expect(await changelogFrom(0)).toEqual([
      [0, '+I', [1, 'b', null]],
      [1, '+U', [1, 'b2', null]],
    ])
  })
})
