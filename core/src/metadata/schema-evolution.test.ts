import { describe, expect, it } from 'vitest'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes, notNull } from '../types/data-type.js'
import { AggFunctions } from './agg-function.js'
import { schemaFromJson, schemaToJson } from './json.js'
import { Schema } from './schema.js'
import type { SchemaChange } from './schema-change.js'
import { orderAsSent } from './schema-change.js'
import { applySchemaChanges } from './schema-evolution.js'
import { TableDescriptor } from './table-descriptor.js'

/** PK (id) table partitioned by dt, bucketed by b: id INT, b INT, dt STRING, v INT, note STRING. */
function table(props: Record<string, string> = {}, agg = false): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('b', DataTypes.INT())
    .column('dt', DataTypes.STRING())
    .column('v', DataTypes.INT(), agg ? AggFunctions.SUM() : undefined)
    .column('note', DataTypes.CHAR(4))
    .withComment('a note')
    .primaryKey('id', 'b', 'dt')
    .build()
  return TableDescriptor.builder()
    .schema(schema)
    .partitionedBy('dt')
    .distributedBy(2, ['b'])
    .properties({ 'table.replication.factor': '1', ...props })
    .build()
}

const apply = (d: TableDescriptor, ...changes: SchemaChange[]) => applySchemaChanges(d, changes)
const applied = (d: TableDescriptor, ...changes: SchemaChange[]) => {
  const next = apply(d, ...changes)
  if (next === undefined) throw new Error('expected a change')
  return next
}
const ids = (d: TableDescriptor) => d.schema.columns.map(c => `${c.name}#${c.columnId}`)

describe('ADD COLUMN (Fluss 0.9.1 rules)', () => {
  it('appends a nullable column with the next id and its comment', () => {
    const next = applied(table(), {
      kind: 'add',
      name: 'extra',
      dataType: DataTypes.BIGINT(),
      comment: 'new',
    })
    expect(ids(next)).toEqual(['id#0', 'b#1', 'dt#2', 'v#3', 'note#4', 'extra#5'])
    expect(next.schema.column('extra')?.comment).toBe('new')
    expect(next.schema.highestFieldId).toBe(5)
  })

  it('gives nested ROW fields the ids after the column', () => {
    const row = DataTypes.ROW([
      { name: 'x', type: DataTypes.INT(), fieldId: -1 },
      { name: 'y', type: DataTypes.STRING(), fieldId: -1 },
    ])
    const next = applied(table(), { kind: 'add', name: 'p', dataType: row })
    const p = next.schema.column('p')
    expect(p?.columnId).toBe(5)
    expect(p?.type.type === 'ROW' && p.type.fields.map(f => f.fieldId)).toEqual([6, 7])
    expect(next.schema.highestFieldId).toBe(7)
  })

  it("refuses what Fluss refuses, with Fluss's messages", () => {
    const d = table()
    expectFlussError(
      () => apply(d, { kind: 'add', name: 'v', dataType: DataTypes.INT() }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'Column v already exists.',
    )
    expectFlussError(
      () => apply(d, { kind: 'add', name: 'x', dataType: notNull(DataTypes.INT()) }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'Column x must be nullable.',
    )
    expectFlussError(
      () => apply(d, { kind: 'add', name: 'x', dataType: DataTypes.INT(), position: 'FIRST' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'Only support addColumn column at last now.',
    )
    expectFlussError(
      () => apply(d, { kind: 'add', name: '__offset', dataType: DataTypes.INT() }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'reserved system columns',
    )
  })
})

describe('DROP COLUMN', () => {
  it('removes the column; its id is never given again', () => {
    const dropped = applied(table(), { kind: 'drop', name: 'v' })
    expect(ids(dropped)).toEqual(['id#0', 'b#1', 'dt#2', 'note#4'])
    expect(dropped.schema.highestFieldId).toBe(4)
    const readded = applied(dropped, { kind: 'add', name: 'v', dataType: DataTypes.INT() })
    expect(readded.schema.column('v')?.columnId).toBe(5)
  })

  it('refuses key columns, the version column and the auto-increment column', () => {
    const d = table()
    expectFlussError(
      () => apply(d, { kind: 'drop', name: 'id' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      "Cannot drop column 'id': it is a primary key column.",
    )
    const log = TableDescriptor.builder()
      .schema(
        Schema.newBuilder()
          .column('a', DataTypes.INT())
          .column('k', DataTypes.INT())
          .column('p', DataTypes.STRING())
          .build(),
      )
      .partitionedBy('p')
      .distributedBy(2, ['k'])
      .build()
    expectFlussError(
      () => apply(log, { kind: 'drop', name: 'p' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'it is a partition key column',
    )
    expectFlussError(
      () => apply(log, { kind: 'drop', name: 'k' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'it is a bucket key column',
    )
    const versioned = table({
      'table.merge-engine': 'versioned',
      'table.merge-engine.versioned.ver-column': 'v',
    })
    expectFlussError(
      () => apply(versioned, { kind: 'drop', name: 'v' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'version column of the versioned merge engine',
    )
    expectFlussError(
      () => apply(d, { kind: 'drop', name: 'nope' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'Column nope does not exist.',
    )
  })
})

describe('RENAME COLUMN', () => {
  it('keeps the id and follows the version column property', () => {
    const d = table({ 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'v' })
    const next = applied(d, { kind: 'rename', name: 'v', newName: 'version' })
    expect(next.schema.column('version')?.columnId).toBe(3)
    expect(next.properties['table.merge-engine.versioned.ver-column']).toBe('version')
  })

  it('refuses key columns and taken names', () => {
    const d = table()
    expectFlussError(
      () => apply(d, { kind: 'rename', name: 'b', newName: 'bb' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'it is a primary key column',
    )
    expectFlussError(
      () => apply(d, { kind: 'rename', name: 'v', newName: 'note' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'column note already exists',
    )
  })
})

describe('MODIFY COLUMN', () => {
  it('widens types, keeping ids', () => {
    const next = applied(
      table(),
      { kind: 'modify', name: 'v', dataType: DataTypes.BIGINT() },
      { kind: 'modify', name: 'note', dataType: DataTypes.STRING() },
    )
    expect(next.schema.column('v')?.type).toEqual(DataTypes.BIGINT())
    expect(next.schema.column('v')?.columnId).toBe(3)
    expect(next.schema.column('note')?.type).toEqual(DataTypes.STRING())
    expect(next.schema.column('note')?.comment).toBe('a note')
  })

  it('refuses narrowing, NOT NULL, moves and key columns', () => {
    const d = applied(table(), { kind: 'modify', name: 'v', dataType: DataTypes.BIGINT() })
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'v', dataType: DataTypes.INT() }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'narrowing',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'note', dataType: DataTypes.CHAR(2) }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'shortening a CHAR',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'note', dataType: DataTypes.INT() }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'only widening',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'v', dataType: notNull(DataTypes.BIGINT()) }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'cannot become NOT NULL',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'v', position: 'FIRST' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'columns keep their positions',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'b', dataType: DataTypes.BIGINT() }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'it is a primary key column',
    )
    const dec = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('d', DataTypes.DECIMAL(10, 2)).build())
      .distributedBy(1)
      .build()
    expect(
      applied(dec, { kind: 'modify', name: 'd', dataType: DataTypes.DECIMAL(20, 2) }).schema.columns[0].type,
    ).toEqual(DataTypes.DECIMAL(20, 2))
    expectFlussError(
      () => apply(dec, { kind: 'modify', name: 'd', dataType: DataTypes.DECIMAL(12, 3) }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'scale of a DECIMAL',
    )
  })

  it('lets NOT NULL columns become nullable', () => {
    const d = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('a', notNull(DataTypes.INT())).build())
      .distributedBy(1)
      .build()
    expect(
      applied(d, { kind: 'modify', name: 'a', dataType: DataTypes.INT() }).schema.columns[0].type.nullable,
    ).toBe(true)
  })

  it('sets and removes comments and defaults, checking defaults against the type', () => {
    const d = table()
    const next = applied(d, { kind: 'modify', name: 'v', comment: 'count', defaultValue: '7' })
    expect(next.schema.column('v')).toMatchObject({ comment: 'count', defaultValue: '7' })
    const back = applied(next, { kind: 'modify', name: 'v', comment: null, defaultValue: null })
    expect(back.schema.column('v')?.comment).toBeUndefined()
    expect(back.schema.column('v')?.defaultValue).toBeUndefined()
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'v', defaultValue: 'x' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      'expected an integer',
    )
    expectFlussError(
      () => apply(d, { kind: 'modify', name: 'note', defaultValue: 'toolong' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
      "column 'note'",
    )
    // The default survives in Fluss's JSON (as an extra key Fluss ignores).
    expect(schemaFromJson(schemaToJson(next.schema)).equals(next.schema)).toBe(true)
  })

  it('checks the aggregation function against the new type', () => {
    const d = table({ 'table.merge-engine': 'aggregation' }, true)
    const next = applied(d, { kind: 'modify', name: 'v', dataType: DataTypes.BIGINT() })
    expect(next.schema.column('v')?.aggFunction?.type).toBe('sum')
  })
})

describe('a whole ALTER', () => {
  it('is undefined when nothing changes', () => {
    expect(apply(table(), { kind: 'modify', name: 'v', dataType: DataTypes.INT() })).toBeUndefined()
    expect(apply(table(), { kind: 'rename', name: 'v', newName: 'v' })).toBeUndefined()
  })

  it('orders changes as one request applies them: add, drop, rename, modify', () => {
    const changes: SchemaChange[] = [
      { kind: 'modify', name: 'w', comment: 'renamed' },
      { kind: 'rename', name: 'v', newName: 'w' },
      { kind: 'drop', name: 'note' },
      { kind: 'add', name: 'x', dataType: DataTypes.INT() },
    ]
    expect(orderAsSent(changes).map(c => c.kind)).toEqual(['add', 'drop', 'rename', 'modify'])
    const next = applied(table(), ...orderAsSent(changes))
    expect(ids(next)).toEqual(['id#0', 'b#1', 'dt#2', 'w#3', 'x#5'])
    expect(next.schema.column('w')?.comment).toBe('renamed')
  })

  it('leaves the table unchanged when one change is refused', () => {
    const d = table()
    const before = schemaToJson(d.schema)
    expectFlussError(
      () => apply(d, { kind: 'add', name: 'x', dataType: DataTypes.INT() }, { kind: 'drop', name: 'id' }),
      'INVALID_ALTER_TABLE_EXCEPTION',
    )
    expect(schemaToJson(d.schema)).toBe(before)
  })
})
