import { describe, expect, it } from 'vitest'
import { TABLE_AUTO_PARTITION_ENABLED } from '../config/index.js'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes } from '../types/data-type.js'
import { AggFunctions } from './agg-function.js'
import { Schema } from './schema.js'
import { autoPartitionStrategy } from './table-config.js'
import { TableDescriptor } from './table-descriptor.js'
import { TableInfo } from './table-info.js'
import { tablePath } from './table-path.js'

describe('Schema', () => {
  it('assigns ids to columns, then to nested ROW fields depth first', () => {
    const schema = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column(
        'b',
        DataTypes.ROW([
          {
            name: 'x',
            type: DataTypes.ROW([{ name: 'y', type: DataTypes.INT(), fieldId: 99 }]),
            fieldId: 99,
          },
          {
            name: 'z',
            type: DataTypes.ARRAY(DataTypes.ROW([{ name: 'w', type: DataTypes.INT(), fieldId: 0 }])),
            fieldId: 0,
          },
        ]),
      )
      .column('c', DataTypes.STRING())
      .build()
    expect(schema.columnIds).toEqual([0, 1, 6])
    const b = schema.columns[1].type
    expect(b.type === 'ROW' && b.fields.map(f => f.fieldId)).toEqual([2, 4])
    const x = b.type === 'ROW' ? b.fields[0].type : undefined
    expect(x?.type === 'ROW' && x.fields[0].fieldId).toBe(3)
    expect(schema.highestFieldId).toBe(6)
    expect(schema.rowType.fields.map(f => [f.name, f.fieldId])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 6],
    ])
  })

  it('forces primary key columns NOT NULL and indexes columns by name', () => {
    const schema = Schema.newBuilder()
      .column('a', DataTypes.INT())
      .column('b', DataTypes.STRING())
      .primaryKey('b')
      .build()
    expect(schema.columns[1].type.nullable).toBe(false)
    expect(schema.columns[0].type.nullable).toBe(true)
    expect(schema.primaryKey).toEqual({ constraintName: 'PK_b', columnNames: ['b'] })
    expect(schema.columnIndex('b')).toBe(1)
    expect(schema.columnIndex('zz')).toBe(-1)
    expect(schema.column('a')?.columnId).toBe(0)
    expect(schema.primaryKeyIndexes).toEqual([1])
    expectFlussError(
      () => schema.columnIndexes(['zz']),
      'INVALID_TABLE_EXCEPTION',
      'Column zz does not exist in schema.',
    )
  })

  it.each([
    [
      'duplicate columns',
      () => Schema.newBuilder().column('a', DataTypes.INT()).column('a', DataTypes.INT()).build(),
      'Table column [a, a] must not contain duplicate fields. Found: [a]',
    ],
    [
      'primary key on a missing column',
      () => Schema.newBuilder().column('a', DataTypes.INT()).primaryKey('b').build(),
      'Table column [a] should include all primary key constraint [b]',
    ],
    [
      'duplicate primary key columns',
      () => Schema.newBuilder().column('a', DataTypes.INT()).primaryKey('a', 'a').build(),
      'must not contain duplicate columns. Found: [a]',
    ],
    [
      'two primary keys',
      () => Schema.newBuilder().column('a', DataTypes.INT()).primaryKey('a').primaryKey('a'),
      'Multiple primary keys are not supported.',
    ],
    ['empty primary key', () => Schema.newBuilder().primaryKey(), 'at least a single column'],
    [
      'aggregation function on a primary key column',
      () => Schema.newBuilder().column('a', DataTypes.INT(), AggFunctions.SUM()).primaryKey('a').build(),
      "Cannot set aggregation function for primary key column 'a'.",
    ],
    [
      'comment before any column',
      () => Schema.newBuilder().withComment('x'),
      "Method 'withComment(...)' must be called after",
    ],
    [
      'invalid type parameters',
      () => Schema.newBuilder().column('d', DataTypes.DECIMAL(40, 2)).build(),
      "Column 'd' has an invalid type",
    ],
  ])('rejects %s', (_name, fn, text) => {
    expectFlussError(fn, 'INVALID_TABLE_EXCEPTION', text)
  })

  describe('auto-increment column', () => {
    const base = () => Schema.newBuilder().column('id', DataTypes.STRING()).column('seq', DataTypes.BIGINT())

    it('is allowed once, on an INT/BIGINT non-key column of a primary-key table', () => {
      const schema = base().primaryKey('id').enableAutoIncrement('seq').build()
      expect(schema.autoIncrementColumnNames).toEqual(['seq'])
    })

    it.each([
      [
        'on a log table',
        () => base().enableAutoIncrement('seq').build(),
        'Auto increment column can only be used in primary-key table.',
      ],
      [
        'twice',
        () => base().enableAutoIncrement('seq').enableAutoIncrement('id'),
        'Multiple auto increment columns are not supported yet.',
      ],
      [
        'on a missing column',
        () => base().primaryKey('id').enableAutoIncrement('x').build(),
        'Auto increment column x does not exist in table columns [id, seq].',
      ],
      [
        'on the primary key',
        () => base().primaryKey('id').enableAutoIncrement('id').build(),
        'Auto increment column can not be used as the primary key.',
      ],
      [
        'on a STRING column',
        () =>
          Schema.newBuilder()
            .column('id', DataTypes.INT())
            .column('s', DataTypes.STRING())
            .primaryKey('id')
            .enableAutoIncrement('s')
            .build(),
        'The data type of auto increment column must be INT or BIGINT.',
      ],
    ])('is refused %s', (_name, fn, text) => {
      expectFlussError(fn, 'INVALID_TABLE_EXCEPTION', text)
    })
  })
})

describe('TableDescriptor and TableInfo', () => {
  const pkSchema = Schema.newBuilder()
    .column('a', DataTypes.INT())
    .column('b', DataTypes.STRING())
    .column('dt', DataTypes.STRING())
    .primaryKey('a', 'b', 'dt')
    .build()
  const logSchema = Schema.newBuilder().column('a', DataTypes.INT()).column('b', DataTypes.STRING()).build()

  it('defaults the bucket keys of a primary-key table to the physical primary key', () => {
    const d = TableDescriptor.builder().schema(pkSchema).partitionedBy('dt').build()
    expect(d.bucketKeys).toEqual(['a', 'b'])
    expect(d.bucketCount).toBeUndefined()
    expect(d.isDefaultBucketKey).toBe(true)
    const log = TableDescriptor.builder().schema(logSchema).build()
    expect(log.distribution).toBeUndefined()
    expect(log.bucketKeys).toEqual([])
    expect(log.isDefaultBucketKey).toBe(true)
  })

  it('derives table info from a created descriptor', () => {
    const d = TableDescriptor.builder()
      .schema(pkSchema)
      .partitionedBy('dt')
      .distributedBy(4, 'a')
      .property('table.auto-partition.enabled', 'true')
      .comment('c')
      .build()
    const info = TableInfo.of(tablePath('db', 't'), 10, 1, d, 100, 200)
    expect(info.hasPrimaryKey).toBe(true)
    expect(info.primaryKeys).toEqual(['a', 'b', 'dt'])
    expect(info.physicalPrimaryKeys).toEqual(['a', 'b'])
    expect(info.bucketKeys).toEqual(['a'])
    expect(info.isDefaultBucketKey).toBe(false)
    expect(info.numBuckets).toBe(4)
    expect(info.isPartitioned).toBe(true)
    expect(info.isAutoPartitioned).toBe(true)
    expect(autoPartitionStrategy(info.tableConfig).timeUnit).toBe('DAY')
    expect(info.tableConfig.get(TABLE_AUTO_PARTITION_ENABLED)).toBe(true)
    const back = info.toTableDescriptor()
    expect(back.bucketCount).toBe(4)
    expect(back.comment).toBe('c')
    expectFlussError(
      () =>
        TableInfo.of(tablePath('db', 't'), 1, 1, TableDescriptor.builder().schema(logSchema).build(), 0, 0),
      'INVALID_TABLE_EXCEPTION',
      'Bucket count is required',
    )
  })

  it.each([
    [
      'bucket key that is a partition key',
      () => TableDescriptor.builder().schema(pkSchema).partitionedBy('dt').distributedBy(1, 'dt').build(),
      "Bucket key [dt] shouldn't include any column in partition keys [dt].",
    ],
    [
      'bucket key outside the primary key',
      () =>
        TableDescriptor.builder()
          .schema(
            Schema.newBuilder()
              .column('a', DataTypes.INT())
              .column('c', DataTypes.INT())
              .primaryKey('a')
              .build(),
          )
          .distributedBy(1, 'c')
          .build(),
      'Bucket keys must be a subset of primary keys excluding partition keys for primary-key tables. The primary keys are [a], the partition keys are [], but the user-defined bucket keys are [c].',
    ],
    [
      'partition keys equal to the primary key',
      () =>
        TableDescriptor.builder()
          .schema(Schema.newBuilder().column('dt', DataTypes.STRING()).primaryKey('dt').build())
          .partitionedBy('dt')
          .build(),
      'Primary Key constraint [dt] should not be same with partition fields [dt].',
    ],
    [
      'partition key outside the primary key',
      () =>
        TableDescriptor.builder()
          .schema(
            Schema.newBuilder()
              .column('a', DataTypes.INT())
              .column('p', DataTypes.STRING())
              .primaryKey('a')
              .build(),
          )
          .partitionedBy('p')
          .build(),
      'Partitioned Primary Key Table requires partition key [p] is a subset of the primary key [a].',
    ],
    [
      'missing partition column',
      () => TableDescriptor.builder().schema(logSchema).partitionedBy('x').build(),
      "Partition key 'x' does not exist in the schema.",
    ],
    [
      'missing bucket column',
      () => TableDescriptor.builder().schema(logSchema).distributedBy(2, 'x').build(),
      "Bucket key 'x' does not exist in the schema.",
    ],
    [
      'duplicate partition keys',
      () => TableDescriptor.builder().schema(logSchema).partitionedBy('b', 'b').build(),
      'Partition keys [b, b] must not contain duplicate columns.',
    ],
    ['no schema', () => TableDescriptor.builder().build(), 'schema must not be null.'],
  ])('rejects %s', (_name, fn, text) => {
    expectFlussError(fn, 'INVALID_TABLE_EXCEPTION', text)
  })
})
