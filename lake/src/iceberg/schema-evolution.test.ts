import { DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { tableInfoOf } from '../testing/tables.js'
import { lakeSchemaOf } from './schema.js'
import { evolvedIcebergSchema, isIcebergPromotion } from './schema-evolution.js'
import { withCurrentSchema } from './table-metadata.js'
import type { TableMetadata } from './types.js'

const base = lakeSchemaOf(
  tableInfoOf({
    columns: [
      ['id', notNull(DataTypes.BIGINT())],
      ['v', DataTypes.INT()],
    ],
  }),
)
const metadata = (schemas = [base.iceberg]): TableMetadata =>
  ({
    'current-schema-id': schemas[schemas.length - 1]['schema-id'],
    schemas,
    'last-column-id': base.lastColumnId,
    'last-updated-ms': 0,
    'metadata-log': [],
  }) as unknown as TableMetadata

describe('Iceberg schema evolution', () => {
  it("allows Iceberg's promotions only", () => {
    expect(isIcebergPromotion('int', 'long')).toBe(true)
    expect(isIcebergPromotion('float', 'double')).toBe(true)
    expect(isIcebergPromotion('decimal(10, 2)', 'decimal(12, 2)')).toBe(true)
    expect(isIcebergPromotion('decimal(10, 2)', 'decimal(12, 3)')).toBe(false)
    expect(isIcebergPromotion('decimal(10, 2)', 'decimal(9, 2)')).toBe(false)
    expect(isIcebergPromotion('long', 'int')).toBe(false)
    expect(isIcebergPromotion('string', 'int')).toBe(false)
  })

  it('gives the next schema id to a changed schema and nothing to an unchanged one', () => {
    expect(evolvedIcebergSchema(metadata(), base)).toBeUndefined()
    const widened = lakeSchemaOf(
      tableInfoOf({
        columns: [
          ['id', notNull(DataTypes.BIGINT())],
          ['v', DataTypes.BIGINT()],
        ],
      }),
    )
    const next = evolvedIcebergSchema(metadata(), widened)
    expect(next?.['schema-id']).toBe(1)
    const md = withCurrentSchema(
      metadata(),
      'm0.json',
      next as NonNullable<typeof next>,
      widened.lastColumnId,
      5,
    )
    expect([md['current-schema-id'], md.schemas.length, md['metadata-log'].length]).toEqual([1, 2, 1])
    expect(md['last-column-id']).toBe(base.lastColumnId)
  })

  it('refuses a required new field and a type that is no promotion', () => {
    const info = tableInfoOf({
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['v', DataTypes.INT()],
      ],
    })
    const required = lakeSchemaOf(info)
    const withRequired = {
      ...required,
      iceberg: {
        ...required.iceberg,
        fields: [...required.iceberg.fields, { id: 3, name: 'w', required: true, type: 'int' as const }],
      },
    }
    expect(() => evolvedIcebergSchema(metadata(), withRequired)).toThrow(/new field w is required/)
    const narrowed = lakeSchemaOf(
      tableInfoOf({
        columns: [
          ['id', notNull(DataTypes.INT())],
          ['v', DataTypes.INT()],
        ],
      }),
    )
    expect(() => evolvedIcebergSchema(metadata(), narrowed)).toThrow(/cannot change from long to int/)
  })
})
