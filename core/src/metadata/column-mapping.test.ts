import { describe, expect, it } from 'vitest'
import { Decimal } from '../row/value.js'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes } from '../types/data-type.js'
import { ColumnMapping, ColumnMappings } from './column-mapping.js'
import { Schema } from './schema.js'
import { applySchemaChanges } from './schema-evolution.js'
import { TableDescriptor } from './table-descriptor.js'

const v1 = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.FLOAT())
  .column('d', DataTypes.DECIMAL(5, 2))
  .build()

function evolve(schema: Schema, ...changes: Parameters<typeof applySchemaChanges>[1]): Schema {
  const d = TableDescriptor.builder().schema(schema).distributedBy(1).build()
  const next = applySchemaChanges(d, changes)
  if (next === undefined) throw new Error('no change')
  return next.schema
}

describe('ColumnMapping', () => {
  it('is the identity for the same schema', () => {
    const m = ColumnMapping.between(v1, v1)
    expect(m.identity).toBe(true)
    const row = [1, 'x', 1.5, new Decimal(123n, 2)]
    expect(m.map(row)).toBe(row)
  })

  it('pads added columns, drops dropped ones, follows renames and widens by column id', () => {
    const v2 = evolve(
      v1,
      { kind: 'add', name: 'e', dataType: DataTypes.STRING() },
      { kind: 'drop', name: 'b' },
      { kind: 'rename', name: 'c', newName: 'c2' },
      { kind: 'modify', name: 'a', dataType: DataTypes.BIGINT() },
      { kind: 'modify', name: 'c2', dataType: DataTypes.DOUBLE() },
      { kind: 'modify', name: 'd', dataType: DataTypes.DECIMAL(12, 2) },
    )
    expect(v2.columnNames).toEqual(['a', 'c2', 'd', 'e'])
    const m = ColumnMapping.between(v1, v2)
    expect(m.identity).toBe(false)
    expect(m.sourceIndexes).toEqual([0, 2, 3, -1])
    expect(m.map([7, 'gone', 0.5, new Decimal(1n, 2)])).toEqual([7n, 0.5, new Decimal(1n, 2), null])
    expect(m.map([null, null, null, null])).toEqual([null, null, null, null])
    // Back from the new schema to the old one: the dropped column reads NULL too, widened values
    // that fit are narrowed back, and one that does not fit is STALE_SCHEMA.
    const back = ColumnMapping.between(v2, v1)
    expect(back.sourceIndexes).toEqual([0, -1, 1, 2])
    expect(back.map([7n, 0.5, new Decimal(1n, 2), 'e'])).toEqual([7, null, 0.5, new Decimal(1n, 2)])
    expectFlussError(() => back.map([2n ** 40n, null, null, null]), 'STALE_SCHEMA', "Column 'a' is BIGINT")
    expectFlussError(() => back.map([null, 0.1, null, null]), 'STALE_SCHEMA', "Column 'c'")
    expectFlussError(
      () => back.map([null, null, new Decimal(123456n, 2), null]),
      'STALE_SCHEMA',
      "Column 'd'",
    )
    expect(m.targetPositions([0, 1, 2])).toEqual([0, 1])
  })

  it('refuses columns whose types are not a widening of each other', () => {
    const other = Schema.newBuilder()
      .fromColumns([{ ...v1.columns[0], type: DataTypes.STRING() }])
      .build()
    expectFlussError(
      () => ColumnMapping.between(v1, other),
      'INVALID_TABLE_EXCEPTION',
      'Expected datatype of column(id=0,name=a)',
    )
  })

  it('ColumnMappings builds one mapping per schema id', () => {
    const v2 = evolve(v1, { kind: 'drop', name: 'b' })
    const loaded: number[] = []
    const mappings = new ColumnMappings(v2, id => {
      loaded.push(id)
      return id === 1 ? v1 : v2
    })
    expect(mappings.of(1)).toBe(mappings.of(1))
    expect(mappings.of(2).identity).toBe(true)
    expect(loaded).toEqual([1, 2])
  })
})
