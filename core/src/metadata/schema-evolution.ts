import { TABLE_MERGE_ENGINE, TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN } from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { classifyTypeChange, nullabilityChangeProblem } from '../types/type-widening.js'
import { type Column, nestedFieldIds, Schema } from './schema.js'
import type { AddColumn, DropColumn, ModifyColumn, RenameColumn, SchemaChange } from './schema-change.js'
import type { TableDescriptor } from './table-descriptor.js'
import { validateTableSchema } from './validation.js'

/**
 * Applies ALTER TABLE column changes to a table (Fluss's `SchemaUpdate`, extended): the result is
 * the table with its next schema, or undefined when nothing changes. Every refusal is
 * INVALID_ALTER_TABLE_EXCEPTION, thrown before anything is stored.
 *
 * Column ids are the identity of a column for the life of the table: a renamed or widened column
 * keeps its id, an added column (and its nested ROW fields) gets ids above `highestFieldId`, and a
 * dropped column's id is never given again. Readers of rows written under any schema version match
 * columns by id (`column-mapping.ts`).
 *
 * - ADD (Fluss 0.9.1): nullable, at the end (LAST), with an optional comment (and default).
 * - DROP: any column but a primary-key, partition-key or bucket-key column, the auto-increment
 *   column and the version column of the versioned merge engine; not the last column.
 * - RENAME: any column but a key column (key columns are named by every writer's key encoding and
 *   partition spec); the version column follows the new name.
 * - MODIFY: a widening type change (`types/type-widening.ts`) of a non-key column, NOT NULL to
 *   nullable, the comment, the default. Columns keep their positions.
 * Afterwards the table must still satisfy the creation rules its schema is part of (aggregation
 * functions accept their column's new type, the version column keeps a version type, no reserved
 * names).
 */
export function applySchemaChanges(
  descriptor: TableDescriptor,
  changes: readonly SchemaChange[],
): TableDescriptor | undefined {
  const evolving = new EvolvingTable(descriptor)
  for (const change of changes) evolving.apply(change)
  const next = evolving.build()
  if (next.schema.equals(descriptor.schema)) return undefined
  try {
    validateTableSchema(next)
  } catch (e) {
    if (e instanceof FlussError) throw invalidAlter(e.message)
    throw e
  }
  return next
}

function invalidAlter(message: string): FlussError {
  return new FlussError('INVALID_ALTER_TABLE_EXCEPTION', message)
}

type KeyKind = 'primary key' | 'partition key' | 'bucket key'

class EvolvingTable {
  readonly #columns: Column[]
  #highestFieldId: number
  #autoIncrement: string[]
  readonly #properties: Record<string, string>

  constructor(readonly descriptor: TableDescriptor) {
    this.#columns = [...descriptor.schema.columns]
    this.#highestFieldId = descriptor.schema.highestFieldId
    this.#autoIncrement = [...descriptor.schema.autoIncrementColumnNames]
    this.#properties = { ...descriptor.properties }
  }

  apply(change: SchemaChange): void {
    switch (change.kind) {
      case 'add':
        this.#add(change)
        break
      case 'drop':
        this.#drop(change)
        break
      case 'rename':
        this.#rename(change)
        break
      case 'modify':
        this.#modify(change)
        break
    }
  }

  build(): TableDescriptor {
    const d = this.descriptor
    const builder = Schema.newBuilder().fromColumns(this.#columns).highestFieldId(this.#highestFieldId)
    if (d.schema.primaryKey !== undefined) {
      builder.primaryKeyNamed(d.schema.primaryKey.constraintName, d.schema.primaryKey.columnNames)
    }
    for (const name of this.#autoIncrement) builder.enableAutoIncrement(name)
    let schema: Schema
    try {
      schema = builder.build()
    } catch (e) {
      if (e instanceof FlussError) throw invalidAlter(e.message)
      throw e
    }
    return d.with({ schema, properties: this.#properties })
  }

  #index(name: string): number {
    const i = this.#columns.findIndex(c => c.name === name)
    if (i < 0) throw invalidAlter(`Column ${name} does not exist.`)
    return i
  }

  #keyKind(name: string): KeyKind | undefined {
    const d = this.descriptor
    if (d.schema.primaryKeyColumnNames.includes(name)) return 'primary key'
    if (d.partitionKeys.includes(name)) return 'partition key'
    if (d.bucketKeys.includes(name)) return 'bucket key'
    return undefined
  }

  #versionColumn(): string | undefined {
    if (this.#properties[TABLE_MERGE_ENGINE.key]?.toUpperCase() !== 'VERSIONED') return undefined
    return this.#properties[TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key]
  }

  #add(c: AddColumn): void {
    if (this.#columns.some(x => x.name === c.name)) throw invalidAlter(`Column ${c.name} already exists.`)
    if ((c.position ?? 'LAST') !== 'LAST') throw invalidAlter('Only support addColumn column at last now.')
    if (!c.dataType.nullable) throw invalidAlter(`Column ${c.name} must be nullable.`)
    if (c.name.trim() === '') throw invalidAlter('A column name must contain a non-whitespace character.')
    // The builder gives the column and its nested ROW fields the next ids.
    const added = Schema.newBuilder().highestFieldId(this.#highestFieldId).column(c.name, c.dataType)
    if (c.comment !== undefined) added.withComment(c.comment)
    if (c.defaultValue !== undefined) added.withDefault(c.defaultValue)
    const column = added.build().columns[0]
    this.#highestFieldId = Math.max(this.#highestFieldId, column.columnId, ...nestedFieldIds(column.type))
    this.#columns.push(column)
  }

  #drop(c: DropColumn): void {
    const i = this.#index(c.name)
    const key = this.#keyKind(c.name)
    if (key !== undefined) throw invalidAlter(`Cannot drop column '${c.name}': it is a ${key} column.`)
    if (this.#autoIncrement.includes(c.name)) {
      throw invalidAlter(`Cannot drop column '${c.name}': it is the auto-increment column.`)
    }
    if (this.#versionColumn() === c.name) {
      throw invalidAlter(
        `Cannot drop column '${c.name}': it is the version column of the versioned merge engine ('${TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key}').`,
      )
    }
    if (this.#columns.length === 1)
      throw invalidAlter(`Cannot drop column '${c.name}': a table needs a column.`)
    this.#columns.splice(i, 1)
  }

  #rename(c: RenameColumn): void {
    const i = this.#index(c.name)
    if (c.newName === c.name) return
    if (c.newName.trim() === '') throw invalidAlter('A column name must contain a non-whitespace character.')
    if (this.#columns.some(x => x.name === c.newName)) {
      throw invalidAlter(
        `Cannot rename column '${c.name}' to '${c.newName}': column ${c.newName} already exists.`,
      )
    }
    const key = this.#keyKind(c.name)
    if (key !== undefined) {
      throw invalidAlter(
        `Cannot rename column '${c.name}': it is a ${key} column, named by every writer's key encoding.`,
      )
    }
    this.#columns[i] = { ...this.#columns[i], name: c.newName }
    this.#autoIncrement = this.#autoIncrement.map(n => (n === c.name ? c.newName : n))
    if (this.#versionColumn() === c.name) {
      this.#properties[TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key] = c.newName
    }
  }

  #modify(c: ModifyColumn): void {
    const i = this.#index(c.name)
    if (c.position !== undefined) {
      throw invalidAlter(
        `Cannot move column '${c.name}': columns keep their positions (${c.position} given).`,
      )
    }
    const column = this.#columns[i]
    let next: Column = column
    if (c.dataType !== undefined) next = { ...next, type: this.#changedType(column, c.dataType) }
    if (c.comment !== undefined) next = withOptional(next, 'comment', c.comment)
    if (c.defaultValue !== undefined) {
      if (c.defaultValue !== null && this.#autoIncrement.includes(c.name)) {
        throw invalidAlter(`Column '${c.name}' is the auto-increment column: it takes no default.`)
      }
      next = withOptional(next, 'defaultValue', c.defaultValue)
    }
    this.#columns[i] = next
  }

  #changedType(column: Column, to: Column['type']): Column['type'] {
    const from = column.type
    const kind = classifyTypeChange(from, to)
    const nullability = nullabilityChangeProblem(from, to)
    if (kind === 'same' && nullability === undefined && from.nullable === to.nullable) return from
    const refuse = (why: string) => invalidAlter(`Cannot modify column '${column.name}': ${why}`)
    const key = this.#keyKind(column.name)
    if (key !== undefined) {
      throw refuse(`it is a ${key} column, whose type is part of every stored key and bucket.`)
    }
    if (this.#autoIncrement.includes(column.name)) {
      throw refuse('it is the auto-increment column, whose type is fixed.')
    }
    if (kind !== 'same' && kind !== 'widening') throw refuse(kind.refused)
    if (nullability !== undefined) throw refuse(nullability)
    if (kind === 'same') return { ...from, nullable: to.nullable }
    return to
  }
}

function withOptional(c: Column, key: 'comment' | 'defaultValue', value: string | null): Column {
  const next: { -readonly [K in keyof Column]: Column[K] } = { ...c }
  if (value === null) delete next[key]
  else next[key] = value
  return next
}
