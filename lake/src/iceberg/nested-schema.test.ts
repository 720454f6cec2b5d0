import { type DataType, DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { tableInfoOf } from '../testing/tables.js'
import { hiveTypeString, NESTED_FIELD_ID_BASE, sameIcebergType } from './nested-schema.js'
import { lakeSchemaOf, sameFields, TIMESTAMP_FIELD_ID } from './schema.js'

const SAMPLE = DataTypes.ROW([
  { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 0 },
  { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 },
])
/** Fluss 0.9's example and a MAP of arrays of rows (with types the lake converts inside). */
const COLUMNS: [string, DataType][] = [
  ['id', notNull(DataTypes.INT())],
  ['samples', DataTypes.ARRAY(DataTypes.MAP(DataTypes.STRING(), SAMPLE))],
  [
    'by_user',
    DataTypes.MAP(
      DataTypes.STRING(),
      DataTypes.ARRAY(
        notNull(
          DataTypes.ROW([
            { name: 'n', type: DataTypes.TINYINT(), fieldId: 0 },
            { name: 'at', type: notNull(DataTypes.TIME(3)), fieldId: 0 },
          ]),
        ),
      ),
    ),
  ],
]

const ids = (n: number, k: number) => NESTED_FIELD_ID_BASE + n * 1000 + k

describe('lake schema of nested columns', () => {
  it('maps ARRAY, MAP and ROW to list, map and struct with an id on every nested field', () => {
    // Fluss ids: id 0, samples 1 (its ROW fields values 2, ts 3), by_user 4 (n 5, at 6).
    const s = lakeSchemaOf(tableInfoOf({ columns: COLUMNS }))
    const [, samples, byUser] = s.iceberg.fields
    expect(samples).toEqual({
      id: 2,
      name: 'samples',
      required: false,
      type: {
        type: 'list',
        'element-id': ids(1, 0),
        'element-required': false,
        element: {
          type: 'map',
          'key-id': ids(1, 1),
          key: 'string',
          'value-id': ids(1, 2),
          'value-required': false,
          value: {
            type: 'struct',
            fields: [
              {
                id: 3,
                name: 'values',
                required: false,
                type: { type: 'list', 'element-id': ids(2, 0), element: 'float', 'element-required': false },
              },
              { id: 4, name: 'ts', required: false, type: 'timestamptz' },
            ],
          },
        },
      },
    })
    expect(byUser.type).toMatchObject({
      type: 'map',
      'key-id': ids(4, 0),
      'value-id': ids(4, 1),
      value: {
        type: 'list',
        'element-id': ids(4, 2),
        'element-required': true,
        element: {
          type: 'struct',
          fields: [
            { id: 6, name: 'n', required: false, type: 'int' },
            { id: 7, name: 'at', required: true, type: 'time' },
          ],
        },
      },
    })
    expect(s.lastColumnId).toBe(ids(4, 2))
    expect(s.lastColumnId).toBeGreaterThan(TIMESTAMP_FIELD_ID)
    // Lake types convert inside: TINYINT as INT, TIME(3) at microseconds, LTZ(3) at microseconds.
    expect(s.columns[2].lakeType).toMatchObject({
      valueType: { elementType: { fields: [{ type: { type: 'INTEGER' } }, { type: { precision: 6 } }] } },
    })
    expect(s.rowType.fields[1].type).toMatchObject({
      elementType: {
        valueType: { fields: [{}, { type: { type: 'TIMESTAMP_WITH_LOCAL_TIME_ZONE', precision: 6 } }] },
      },
    })
  })

  it('gives Parquet the id of each nested field in Arrow child order (entries struct without one)', () => {
    const s = lakeSchemaOf(tableInfoOf({ columns: COLUMNS }))
    const id = (n: number) => ({ 'PARQUET:field_id': String(n) })
    expect(s.columns[0].nestedFieldIds).toBeUndefined()
    expect(s.columns[1].nestedFieldIds).toEqual({
      children: [
        {
          metadata: id(ids(1, 0)),
          children: [
            {
              children: [
                { metadata: id(ids(1, 1)) },
                {
                  metadata: id(ids(1, 2)),
                  children: [
                    { metadata: id(3), children: [{ metadata: id(ids(2, 0)) }] },
                    { metadata: id(4) },
                  ],
                },
              ],
            },
          ],
        },
      ],
    })
  })

  it('keeps every nested id when columns are added, and a column reads the same wherever it sits', () => {
    const before = lakeSchemaOf(tableInfoOf({ columns: COLUMNS }))
    const after = lakeSchemaOf(
      tableInfoOf({ columns: [...COLUMNS, ['extra', DataTypes.MAP(DataTypes.INT(), SAMPLE)]] }),
    )
    expect(after.iceberg.fields.slice(0, 3)).toEqual(before.iceberg.fields.slice(0, 3))
    expect(after.iceberg.fields[3].type).toMatchObject({ 'key-id': ids(7, 0), 'value-id': ids(7, 1) })
    expect(sameFields(before.iceberg, before.iceberg)).toBe(true)
    expect(sameFields(before.iceberg, after.iceberg)).toBe(false)
    const renamedChild = JSON.parse(JSON.stringify(before.iceberg))
    renamedChild.fields[1].type.element.value.fields[1].name = 'time'
    expect(sameFields(before.iceberg, renamedChild)).toBe(false)
    const reordered = JSON.parse(
      JSON.stringify(before.iceberg, [
        'type',
        'fields',
        'id',
        'name',
        'required',
        'element-id',
        'element',
        'element-required',
        'key-id',
        'key',
        'value-id',
        'value',
        'value-required',
        'schema-id',
        'identifier-field-ids',
      ]),
    )
    expect(sameIcebergType(reordered.fields[1].type, before.iceberg.fields[1].type)).toBe(true)
  })

  it('refuses a column that nests more list elements, keys and values than it can number', () => {
    let deep: DataType = DataTypes.INT()
    for (let i = 0; i < 1001; i++) deep = DataTypes.ARRAY(deep)
    expect(() => lakeSchemaOf(tableInfoOf({ columns: [['deep', deep]] }))).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TABLE_EXCEPTION',
        message: expect.stringMatching(/Field 'deep' nests more than 1000 list elements/),
      }),
    )
  })

  it('writes nested types in the Hive/Glue syntax', () => {
    const s = lakeSchemaOf(tableInfoOf({ columns: COLUMNS }))
    const glue = (t: string) => ({ long: 'bigint', timestamptz: 'timestamp', time: 'string' })[t] ?? t
    expect(s.iceberg.fields.slice(1, 3).map(f => hiveTypeString(f.type, glue))).toEqual([
      'array<map<string,struct<values:array<float>,ts:timestamp>>>',
      'map<string,array<struct<n:int,at:string>>>',
    ])
  })
})
