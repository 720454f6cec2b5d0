import { type DataType, DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { PARTITIONED_PK_TABLE, PK_TABLE, tableInfoOf } from '../testing/tables.js'
import { lakePartitioningOf } from './partition.js'
import {
  BUCKET_FIELD_ID,
  icebergTypeOf,
  lakeSchemaOf,
  OFFSET_FIELD_ID,
  TIMESTAMP_FIELD_ID,
} from './schema.js'

describe('lake schema', () => {
  it('maps every Fluss type per the reference', () => {
    const cases: [DataType, string, string][] = [
      [DataTypes.BOOLEAN(), 'boolean', 'BOOLEAN'],
      [DataTypes.TINYINT(), 'int', 'INTEGER'],
      [DataTypes.SMALLINT(), 'int', 'INTEGER'],
      [DataTypes.INT(), 'int', 'INTEGER'],
      [DataTypes.BIGINT(), 'long', 'BIGINT'],
      [DataTypes.FLOAT(), 'float', 'FLOAT'],
      [DataTypes.DOUBLE(), 'double', 'DOUBLE'],
      [DataTypes.CHAR(3), 'string', 'STRING'],
      [DataTypes.STRING(), 'string', 'STRING'],
      [DataTypes.BYTES(), 'binary', 'BYTES'],
      [DataTypes.BINARY(16), 'fixed[16]', 'BINARY'],
      [DataTypes.DECIMAL(10, 2), 'decimal(10, 2)', 'DECIMAL'],
      [DataTypes.DATE(), 'date', 'DATE'],
      [DataTypes.TIME(3), 'time', 'TIME_WITHOUT_TIME_ZONE'],
      [DataTypes.TIMESTAMP(9), 'timestamp', 'TIMESTAMP_WITHOUT_TIME_ZONE'],
      [DataTypes.TIMESTAMP_LTZ(3), 'timestamptz', 'TIMESTAMP_WITH_LOCAL_TIME_ZONE'],
    ]
    for (const [t, iceberg, lake] of cases) {
      const mapped = icebergTypeOf(t)
      expect(mapped.icebergType).toBe(iceberg)
      expect(mapped.lakeType.type).toBe(lake)
      expect(mapped.lakeType.nullable).toBe(true)
    }
    expect(icebergTypeOf(notNull(DataTypes.TIME(9))).lakeType).toEqual({
      type: 'TIME_WITHOUT_TIME_ZONE',
      precision: 6,
      nullable: false,
    })
    expect(icebergTypeOf(DataTypes.TIMESTAMP(3)).lakeType).toMatchObject({ precision: 6 })
  })

  it('derives field ids from column ids and appends required system columns', () => {
    const s = lakeSchemaOf(tableInfoOf(PK_TABLE))
    expect(s.iceberg.fields.map(f => [f.id, f.name, f.type, f.required])).toEqual([
      [1, 'id', 'long', true],
      [2, 'name', 'string', false],
      [3, 'qty', 'int', false],
      [BUCKET_FIELD_ID, '__bucket', 'int', true],
      [OFFSET_FIELD_ID, '__offset', 'long', true],
      [TIMESTAMP_FIELD_ID, '__timestamp', 'timestamptz', true],
    ])
    expect(s.iceberg['identifier-field-ids']).toEqual([1])
    expect(s.lastColumnId).toBe(TIMESTAMP_FIELD_ID)
    expect(s.rowType.fields.map(f => f.type.nullable)).toEqual([false, true, true, false, false, false])
  })

  it('keeps a column id when columns are added before the system band', () => {
    const a = lakeSchemaOf(tableInfoOf({ columns: [['a', DataTypes.INT()]] }))
    const b = lakeSchemaOf(
      tableInfoOf({
        columns: [
          ['a', DataTypes.INT()],
          ['b', DataTypes.STRING()],
        ],
      }),
    )
    expect(b.iceberg.fields[0].id).toBe(a.iceberg.fields[0].id)
    expect(b.iceberg.fields.at(-1)?.id).toBe(a.iceberg.fields.at(-1)?.id)
  })

  it('refuses reserved column names', () => {
    expect(() => lakeSchemaOf(tableInfoOf({ columns: [['__offset', DataTypes.INT()]] }))).toThrow(
      expect.objectContaining({ name: 'FlussError(INVALID_TABLE_EXCEPTION)' }),
    )
  })

  it('partitions by identity of the partition columns, then identity(__bucket)', () => {
    const info = tableInfoOf(PARTITIONED_PK_TABLE)
    const p = lakePartitioningOf(info, lakeSchemaOf(info))
    expect(p.spec).toEqual({
      'spec-id': 0,
      fields: [
        { name: 'dt', transform: 'identity', 'source-id': 1, 'field-id': 1000 },
        { name: '__bucket', transform: 'identity', 'source-id': BUCKET_FIELD_ID, 'field-id': 1001 },
      ],
    })
    expect(() => {
      const bad = tableInfoOf({
        columns: [
          ['f', DataTypes.DOUBLE()],
          ['id', DataTypes.INT()],
        ],
        partitionKeys: ['f'],
      })
      lakePartitioningOf(bad, lakeSchemaOf(bad))
    }).toThrow(expect.objectContaining({ name: 'FlussError(INVALID_TABLE_EXCEPTION)' }))
  })
})
