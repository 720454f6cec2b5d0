import { Schema } from '@sluice/core/metadata'
import { CompactedKeyEncoder, decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { prefixUpperBound } from './rocksdb-kv.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('v', DataTypes.STRING())
  .primaryKey('a', 'b')
  .build()
const kv = new TestingKvBatches(schema)
const bucketKey = CompactedKeyEncoder.of(schema.rowType, ['a'])

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

const rowsOf = (values: Buffer[]) => values.map(v => decodeCompactedRow(decodeValue(v).row, schema.rowType))

describe('KvTablet reads', () => {
  it('lookup returns stored [schemaId][row] values of flushed data only', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'x', 'one'],
        [2, 'y', 'two'],
      ]),
    )
    const keys = [kv.key([1, 'x', null]), kv.key([3, 'z', null]), kv.key([2, 'y', null])]
    expect(await bucket.kv.lookup(keys)).toEqual([null, null, null])
    await bucket.acknowledge()
    const values = await bucket.kv.lookup(keys)
    expect(values[1]).toBeNull()
    expect(values[0]?.readInt16LE(0)).toBe(1)
    expect(rowsOf([values[0] as Buffer, values[2] as Buffer])).toEqual([
      [1, 'x', 'one'],
      [2, 'y', 'two'],
    ])
  })

  it('prefix lookup returns the rows of a bucket key in key order', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'b', '1b'],
        [2, 'a', '2a'],
        [1, 'a', '1a'],
        [1, 'c', '1c'],
        [10, 'a', '10a'],
      ]),
    )
    await bucket.acknowledge()
    expect(rowsOf(await bucket.kv.prefixLookup(bucketKey.encodeKey([1, null, null])))).toEqual([
      [1, 'a', '1a'],
      [1, 'b', '1b'],
      [1, 'c', '1c'],
    ])
    expect(rowsOf(await bucket.kv.prefixLookup(bucketKey.encodeKey([10, null, null])))).toEqual([
      [10, 'a', '10a'],
    ])
    expect(await bucket.kv.prefixLookup(bucketKey.encodeKey([3, null, null]))).toEqual([])
  })

  it('limit scan returns the first N values in key order', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        [3, 'a', '3'],
        [1, 'a', '1'],
        [2, 'a', '2'],
      ]),
    )
    await bucket.acknowledge()
    expect(rowsOf(await bucket.kv.limitScan(2))).toEqual([
      [1, 'a', '1'],
      [2, 'a', '2'],
    ])
    expect(await bucket.kv.limitScan(0)).toEqual([])
    expect(rowsOf(await bucket.kv.limitScan(10))).toHaveLength(3)
  })

  it('computes prefix upper bounds with carries', () => {
    expect(prefixUpperBound(Buffer.from([1, 2]))).toEqual(Buffer.from([1, 3]))
    expect(prefixUpperBound(Buffer.from([1, 0xff]))).toEqual(Buffer.from([2]))
    expect(prefixUpperBound(Buffer.from([0xff, 0xff]))).toBeNull()
  })

  it('refuses reads after close', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.close()
    expect(() => bucket.kv.lookup([kv.key([1, 'x', null])])).toThrow(/closed/)
  })
})
