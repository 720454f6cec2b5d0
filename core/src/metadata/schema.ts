import { FlussError } from '../errors/index.js'
import {
  type DataType,
  dataTypeProblem,
  type RowType,
  typeEquals,
  withNullability,
} from '../types/data-type.js'
import type { AggFunction } from './agg-function.js'
import { parseDefaultValue } from './default-value.js'
import { SchemaBuilder } from './schema-builder.js'

/**
 * A table schema (Fluss's `Schema`): columns with stable ids, an optional primary key and at most
 * one auto-increment column. Ids are unique across columns and nested ROW fields; `highestFieldId`
 * only grows over the schema's life. Primary-key columns are always NOT NULL.
 *
 * Build with `Schema.newBuilder().column('a', DataTypes.INT()).primaryKey('a').build()`.
 * Every inconsistency throws INVALID_TABLE_EXCEPTION.
 */

export const UNKNOWN_COLUMN_ID = -1

export interface Column {
  readonly name: string
  readonly type: DataType
  readonly comment?: string
  readonly columnId: number
  readonly aggFunction?: AggFunction
  /**
   * The write default as text (`default-value.ts`): filled in by writers for a column a row leaves
   * out. A Sluice extension; Fluss's schemas have none.
   */
  readonly defaultValue?: string
}

export interface PrimaryKey {
  readonly constraintName: string
  readonly columnNames: readonly string[]
}

export interface SchemaParts {
  readonly columns: readonly Column[]
  readonly primaryKey?: PrimaryKey
  readonly autoIncrementColumnNames?: readonly string[]
  readonly highestFieldId: number
}

export function schemaError(message: string): FlussError {
  return new FlussError('INVALID_TABLE_EXCEPTION', message)
}

const list = (xs: Iterable<unknown>) => `[${[...xs].join(', ')}]`

export class Schema {
  readonly columns: readonly Column[]
  readonly primaryKey: PrimaryKey | undefined
  readonly autoIncrementColumnNames: readonly string[]
  readonly highestFieldId: number
  readonly rowType: RowType
  readonly #indexByName: ReadonlyMap<string, number>

  static newBuilder(): SchemaBuilder {
    return new SchemaBuilder()
  }

  /** Validates and normalizes the parts (use `Schema.newBuilder()` rather than calling this). */
  constructor(parts: SchemaParts) {
    this.primaryKey = parts.primaryKey
    this.autoIncrementColumnNames = [...(parts.autoIncrementColumnNames ?? [])]
    this.highestFieldId = parts.highestFieldId
    this.columns = normalizeColumns(
      parts.columns,
      parts.primaryKey,
      this.autoIncrementColumnNames,
      parts.highestFieldId,
    )
    this.rowType = {
      type: 'ROW',
      nullable: true,
      fields: this.columns.map(c => ({ name: c.name, type: c.type, fieldId: c.columnId })),
    }
    this.#indexByName = new Map(this.columns.map((c, i) => [c.name, i]))
  }

  get hasPrimaryKey(): boolean {
    return this.primaryKey !== undefined
  }

  get primaryKeyColumnNames(): readonly string[] {
    return this.primaryKey?.columnNames ?? []
  }

  get columnNames(): string[] {
    return this.columns.map(c => c.name)
  }

  /** Top-level column ids (nested field ids excluded). */
  get columnIds(): number[] {
    return this.columns.map(c => c.columnId)
  }

  /** Index of the column named `name`, or -1. */
  columnIndex(name: string): number {
    return this.#indexByName.get(name) ?? -1
  }

  column(name: string): Column | undefined {
    const i = this.columnIndex(name)
    return i < 0 ? undefined : this.columns[i]
  }

  /** Indexes of `names`; throws INVALID_TABLE_EXCEPTION for an unknown column. */
  columnIndexes(names: readonly string[]): number[] {
    return names.map(n => {
      const i = this.columnIndex(n)
      if (i < 0) throw schemaError(`Column ${n} does not exist in schema.`)
      return i
    })
  }

  get primaryKeyIndexes(): number[] {
    return this.columnIndexes(this.primaryKeyColumnNames)
  }

  /** Structural equality: columns (with ids), primary key columns, auto-increment, highest id. */
  equals(o: Schema): boolean {
    const sameList = (a: readonly string[], b: readonly string[]) =>
      a.length === b.length && a.every((x, i) => x === b[i])
    return (
      this.highestFieldId === o.highestFieldId &&
      sameList(this.primaryKeyColumnNames, o.primaryKeyColumnNames) &&
      (this.primaryKey === undefined) === (o.primaryKey === undefined) &&
      sameList(this.autoIncrementColumnNames, o.autoIncrementColumnNames) &&
      this.columns.length === o.columns.length &&
      this.columns.every((c, i) => columnEquals(c, o.columns[i]))
    )
  }
}

export function columnEquals(a: Column, b: Column): boolean {
  const paramsA = JSON.stringify(Object.entries(a.aggFunction?.parameters ?? {}).sort())
  const paramsB = JSON.stringify(Object.entries(b.aggFunction?.parameters ?? {}).sort())
  return (
    a.name === b.name &&
    a.columnId === b.columnId &&
    a.comment === b.comment &&
    a.defaultValue === b.defaultValue &&
    a.aggFunction?.type === b.aggFunction?.type &&
    paramsA === paramsB &&
    typeEquals(a.type, b.type) &&
    sameFieldIds(a.type, b.type)
  )
}

/** Ids of a type's nested ROW fields, depth first (Fluss's `collectAllFieldIds`). */
export function nestedFieldIds(t: DataType, out: number[] = []): number[] {
  if (t.type === 'ROW') {
    for (const f of t.fields) {
      out.push(f.fieldId)
      nestedFieldIds(f.type, out)
    }
  } else if (t.type === 'ARRAY') {
    nestedFieldIds(t.elementType, out)
  } else if (t.type === 'MAP') {
    nestedFieldIds(t.keyType, out)
    nestedFieldIds(t.valueType, out)
  }
  return out
}

function sameFieldIds(a: DataType, b: DataType): boolean {
  return nestedFieldIds(a).join(',') === nestedFieldIds(b).join(',')
}

/** Every field id of the columns: each column's id, then its nested ROW field ids. */
export function allFieldIds(columns: readonly Column[]): number[] {
  return columns.flatMap(c => [c.columnId, ...nestedFieldIds(c.type)])
}

/** Names that occur more than once, each listed once. */
export function duplicateNames(names: readonly string[]): string[] {
  const seen = new Set<string>()
  const dup = new Set<string>()
  for (const n of names) (seen.has(n) ? dup : seen).add(n)
  return [...dup]
}

function checkFieldIds(columns: readonly Column[], highestFieldId: number): void {
  const ids = allFieldIds(columns)
  const unique = new Set(ids).size
  if (unique !== ids.length) {
    throw schemaError(
      `All field IDs (including nested fields) must be unique. Found ${unique} unique IDs but expected ${ids.length}.`,
    )
  }
  const max = ids.reduce((a, b) => Math.max(a, b), -1)
  if (columns.length > 0 && highestFieldId < max) {
    throw schemaError(
      `Highest field ID (${highestFieldId}) must be greater than or equal to the maximum field ID (${max}) including nested fields.`,
    )
  }
}

function normalizeColumns(
  columns: readonly Column[],
  primaryKey: PrimaryKey | undefined,
  autoIncrement: readonly string[],
  highestFieldId: number,
): readonly Column[] {
  for (const c of columns) {
    const problem = dataTypeProblem(c.type)
    if (problem !== undefined) throw schemaError(`Column '${c.name}' has an invalid type: ${problem}`)
    if (c.defaultValue !== undefined) {
      try {
        parseDefaultValue(c.type, c.defaultValue, c.name)
      } catch (e) {
        throw schemaError((e as Error).message)
      }
    }
  }
  checkFieldIds(columns, highestFieldId)
  const names = columns.map(c => c.name)
  const dupColumns = duplicateNames(names)
  if (dupColumns.length > 0) {
    throw schemaError(
      `Table column ${list(names)} must not contain duplicate fields. Found: ${list(dupColumns)}`,
    )
  }
  if (primaryKey === undefined) {
    if (autoIncrement.length > 0)
      throw schemaError('Auto increment column can only be used in primary-key table.')
    return [...columns]
  }
  const pk = primaryKey.columnNames
  const dupPk = duplicateNames(pk)
  if (dupPk.length > 0) {
    throw schemaError(
      `Primary key constraint CONSTRAINT ${primaryKey.constraintName} PRIMARY KEY (${pk.join(', ')}) ` +
        `must not contain duplicate columns. Found: ${list(dupPk)}`,
    )
  }
  if (!pk.every(k => names.includes(k))) {
    throw schemaError(`Table column ${list(names)} should include all primary key constraint ${list(pk)}`)
  }
  checkAutoIncrement(columns, pk, autoIncrement)
  for (const c of columns) {
    if (c.aggFunction !== undefined && pk.includes(c.name)) {
      throw schemaError(
        `Cannot set aggregation function for primary key column '${c.name}'. ` +
          "Primary key columns automatically use 'primary-key' aggregation.",
      )
    }
  }
  return columns.map(c =>
    pk.includes(c.name) && c.type.nullable ? { ...c, type: withNullability(c.type, false) } : c,
  )
}

function checkAutoIncrement(
  columns: readonly Column[],
  pk: readonly string[],
  autoIncrement: readonly string[],
): void {
  for (const name of autoIncrement) {
    const column = columns.find(c => c.name === name)
    if (column === undefined) {
      throw schemaError(
        `Auto increment column ${name} does not exist in table columns ${list(columns.map(c => c.name))}.`,
      )
    }
    if (pk.includes(name)) throw schemaError('Auto increment column can not be used as the primary key.')
    if (column.type.type !== 'INTEGER' && column.type.type !== 'BIGINT') {
      throw schemaError('The data type of auto increment column must be INT or BIGINT.')
    }
  }
}
