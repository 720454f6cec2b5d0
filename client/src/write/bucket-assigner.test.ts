import { bucketForKey } from '@sluice/core/bucketing'
import { Schema, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { createBucketAssigner, HashBucketAssigner, NoKeyBucketAssignerGroup } from './bucket-assigner.js'

function info(
  columns: [string, ReturnType<typeof DataTypes.INT>][],
  buckets: number,
  bucketKeys: string[],
  properties: Record<string, string> = {},
) {
  const builder = Schema.newBuilder()
  for (const [name, type] of columns) builder.column(name, type)
  const descriptor = TableDescriptor.builder()
    .schema(builder.build())
    .distributedBy(buckets, ...bucketKeys)
    .properties(properties)
    .build()
  return TableInfo.of({ databaseName: 'db', tableName: 't' }, 1, 1, descriptor, 0, 0)
}

describe('HashBucketAssigner', () => {
  it('matches Fluss bucketing vectors through the compacted key encoding', () => {
    // SMALLINT encodes as 2 little-endian bytes: 2560 -> 00 0a, 2570 -> 0a 0a.
    const one = new HashBucketAssigner(info([['k', DataTypes.SMALLINT()]], 7, ['k']))
    expect(one.assign([2560])).toBe(1)
    const two = new HashBucketAssigner(
      info(
        [
          ['a', DataTypes.SMALLINT()],
          ['b', DataTypes.SMALLINT()],
          ['v', DataTypes.STRING()],
        ],
        12,
        ['a', 'b'],
      ),
    )
    expect(two.assign([2560, 2570, 'ignored'])).toBe(0)
  })

  it('hashes the encoded bucket-key columns only', () => {
    const table = info(
      [
        ['id', DataTypes.INT()],
        ['name', DataTypes.STRING()],
      ],
      16,
      ['name'],
    )
    const assigner = new HashBucketAssigner(table)
    const encoder = CompactedKeyEncoder.of(table.rowType, ['name'])
    for (const name of [
      'a',
      'The quick brown fox jumps over the lazy dog',
      '2bb87d68-baf9-4e64-90f9-f80910419fa6',
    ]) {
      expect(assigner.assign([1, name])).toBe(bucketForKey(encoder.encodeKey([1, name]), 16))
      expect(assigner.assign([2, name])).toBe(assigner.assign([1, name]))
    }
    expect(() => assigner.assign([1, null])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
  })

  it('buckets Iceberg lake tables with the Iceberg key encoding and bucketing', () => {
    // Fluss 0.9.1 (IcebergKeyEncoder + IcebergBucketingFunction): INT 42 -> bucket 6 of 10, 3 of 7.
    const iceberg = { 'table.datalake.format': 'iceberg' }
    expect(new HashBucketAssigner(info([['id', DataTypes.INT()]], 10, ['id'], iceberg)).assign([42])).toBe(6)
    expect(new HashBucketAssigner(info([['id', DataTypes.INT()]], 7, ['id'], iceberg)).assign([42])).toBe(3)
    // Lance tables keep Fluss's encoding and hash.
    const lance = new HashBucketAssigner(
      info([['k', DataTypes.SMALLINT()]], 7, ['k'], { 'table.datalake.format': 'lance' }),
    )
    expect(lance.assign([2560])).toBe(1)
  })

  it('refuses lake key encodings it lacks, and Iceberg bucket keys of several columns', () => {
    const paimon = info([['id', DataTypes.INT()]], 2, ['id'], { 'table.datalake.format': 'paimon' })
    expect(() => new HashBucketAssigner(paimon)).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_CONFIG_EXCEPTION',
        message: expect.stringContaining('db.t'),
      }),
    )
    const two = info(
      [
        ['a', DataTypes.INT()],
        ['b', DataTypes.INT()],
      ],
      2,
      ['a', 'b'],
      { 'table.datalake.format': 'iceberg' },
    )
    expect(() => new HashBucketAssigner(two)).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })
})

describe('NoKeyBucketAssignerGroup', () => {
  it('sticks to one available bucket until its batch is full (sticky)', () => {
    let n = 0
    const random = () => n++
    const group = new NoKeyBucketAssignerGroup('STICKY', 4, () => [1, 3], random)
    const first = group.assign([], undefined)
    expect([1, 3]).toContain(first)
    expect(group.assign([], undefined)).toBe(first)
    group.onNewBatch(first, undefined)
    const next = group.assign([], undefined)
    expect(next).not.toBe(first)
    expect([1, 3]).toContain(next)
  })

  it('rotates over available buckets per row (round robin), separately per partition', () => {
    const group = new NoKeyBucketAssignerGroup(
      'ROUND_ROBIN',
      3,
      () => [0, 1, 2],
      () => 0,
    )
    expect([0, 1, 2, 3].map(() => group.assign([], 'p1'))).toEqual([0, 1, 2, 0])
    expect(group.assign([], 'p2')).toBe(0)
  })

  it('is chosen for tables without bucket keys', () => {
    const table = info([['id', DataTypes.INT()]], 2, [])
    expect(createBucketAssigner(table, 'ROUND_ROBIN', () => [])).toBeInstanceOf(NoKeyBucketAssignerGroup)
    expect(
      createBucketAssigner(info([['id', DataTypes.INT()]], 2, ['id']), 'STICKY', () => []),
    ).toBeInstanceOf(HashBucketAssigner)
  })
})
