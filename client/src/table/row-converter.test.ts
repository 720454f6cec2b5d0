import { Schema } from '@sluice/core/metadata'
import { Decimal, Timestamp } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { RowConverter, schemaDefaults } from './row-converter.js'

const rowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.BIGINT()), fieldId: 0 },
  { name: 'name', type: DataTypes.CHAR(3), fieldId: 1 },
  { name: 'price', type: DataTypes.DECIMAL(5, 2), fieldId: 2 },
  { name: 'at', type: DataTypes.TIMESTAMP(3), fieldId: 3 },
])
const converter = new RowConverter(rowType)

describe('RowConverter', () => {
  it('takes arrays in column order and objects keyed by column name', () => {
    const at = new Timestamp(1000, 0)
    expect(converter.toRow([1n, 'abc', new Decimal(123n, 2), at])).toEqual([
      1n,
      'abc',
      new Decimal(123n, 2),
      at,
    ])
    expect(converter.toRow({ name: 'x', id: 2n })).toEqual([2n, 'x', null, null])
    expect(converter.toRow({ id: 3n, name: undefined })).toEqual([3n, null, null, null])
  })

  it('converts safe-integer numbers to BIGINT and Dates to timestamps', () => {
    expect(converter.toRow([7, null, null, new Date(5000)])).toEqual([7n, null, null, new Timestamp(5000, 0)])
  })

  it('names the column of a bad value', () => {
    expect(() => converter.toRow([null, 'a', null, null])).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_REQUEST',
        message: expect.stringContaining("column 'id'"),
      }),
    )
    expect(() => converter.toRow([1n, 'abcd', null, null])).toThrow(
      /column 'name'.*4 characters exceed the length 3/,
    )
    expect(() => converter.toRow([1n, null, new Decimal(123456n, 2), null])).toThrow(
      /column 'price'.*exceeds precision 5/,
    )
    expect(() => converter.toRow([1.5, null, null, null])).toThrow(/column 'id'.*expected a bigint/)
    expect(() => converter.toRow([1n, null, null, new Date(Number.NaN)])).toThrow(/column 'at'/)
  })

  it('rejects rows of the wrong shape', () => {
    expect(() => converter.toRow([1n])).toThrow(/Row has 1 values, the table has 4 columns/)
    expect(() => converter.toRow({ id: 1n, extra: 1 })).toThrow(/Unknown column 'extra'/)
    expect(() => converter.toRow(null as never)).toThrow(/must be an array or an object/)
  })

  it('fills in write defaults for columns a row leaves out, never over a value or an explicit null', () => {
    const schema = Schema.newBuilder()
      .column('id', DataTypes.BIGINT())
      .column('region', DataTypes.STRING())
      .column('qty', DataTypes.INT())
      .build()
    const withDefaults = new Schema({
      columns: schema.columns.map(c =>
        c.name === 'region'
          ? { ...c, defaultValue: 'eu' }
          : c.name === 'qty'
            ? { ...c, defaultValue: '1' }
            : c,
      ),
      highestFieldId: schema.highestFieldId,
    })
    const c = new RowConverter(withDefaults.rowType, undefined, schemaDefaults(withDefaults))
    expect(c.toRow({ id: 1n })).toEqual([1n, 'eu', 1])
    expect(c.toRow({ id: 2n, region: undefined, qty: 5 })).toEqual([2n, 'eu', 5])
    expect(c.toRow({ id: 3n, region: null })).toEqual([3n, null, 1])
    expect(c.toRow([4n, undefined, null])).toEqual([4n, 'eu', null])
    expect(new RowConverter(schema.rowType, undefined, schemaDefaults(schema)).toRow({ id: 5n })).toEqual([
      5n,
      null,
      null,
    ])
  })
})
