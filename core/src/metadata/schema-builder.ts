import type { DataType, RowType } from '../types/data-type.js'
import type { AggFunction } from './agg-function.js'
import {
  allFieldIds,
  type Column,
  type PrimaryKey,
  Schema,
  schemaError,
  UNKNOWN_COLUMN_ID,
} from './schema.js'

/**
 * Builds a Schema the way Fluss's `Schema.Builder` does: `column()` assigns the next id to the
 * column and then to each nested ROW field (depth first); `fromColumns()` / `fromSchema()` keep the
 * ids they are given (columns without ids get their position, as schemas from old clients do).
 */
export class SchemaBuilder {
  #columns: Column[] = []
  #primaryKey: PrimaryKey | undefined
  #autoIncrement: string[] = []
  #highestFieldId = -1

  /** Adopts all members of `schema`; must be the first call. */
  fromSchema(schema: Schema): this {
    if (this.#columns.length > 0 || this.#autoIncrement.length > 0 || this.#primaryKey !== undefined) {
      throw schemaError('Schema.Builder#fromSchema should be the first API to be called on the builder.')
    }
    this.fromColumns(schema.columns)
    this.#highestFieldId = schema.highestFieldId
    this.#autoIncrement.push(...schema.autoIncrementColumnNames)
    this.#primaryKey = schema.primaryKey
    return this
  }

  /** Adopts columns as they are: all with ids (kept) or none (ids = next positions). */
  fromColumns(columns: readonly Column[]): this {
    const withId = columns.filter(c => c.columnId !== UNKNOWN_COLUMN_ID).length
    if (withId > 0 && withId < columns.length) {
      throw schemaError('All columns must have columnId or none of them must have columnId.')
    }
    if (withId > 0) {
      if (this.#columns.length > 0) {
        throw schemaError(
          'Schema.Builder#fromColumns (or fromSchema) should be the first API to be called on the builder when adopting columns with IDs.',
        )
      }
      this.#columns.push(...columns)
      this.#highestFieldId = allFieldIds(columns).reduce((a, b) => Math.max(a, b), -1)
    } else {
      for (const c of columns) this.#columns.push({ ...c, columnId: ++this.#highestFieldId })
    }
    return this
  }

  /** Adds each field of `rowType` as a column (with fresh ids). */
  fromRowType(rowType: RowType): this {
    for (const f of rowType.fields) this.column(f.name, f.type)
    return this
  }

  /** Appends a column; the column and its nested ROW fields get fresh ids. */
  column(name: string, type: DataType, aggFunction?: AggFunction): this {
    const columnId = ++this.#highestFieldId
    const reassigned = this.#reassign(type)
    this.#columns.push({
      name,
      type: reassigned,
      columnId,
      ...(aggFunction === undefined ? {} : { aggFunction }),
    })
    return this
  }

  /** Sets the comment of the column added last. */
  withComment(comment: string | undefined): this {
    const last = this.#columns.pop()
    if (last === undefined) {
      throw schemaError(
        "Method 'withComment(...)' must be called after a column definition, but there is no preceding column defined.",
      )
    }
    const { comment: _old, ...rest } = last
    this.#columns.push(comment === undefined ? rest : { ...rest, comment })
    return this
  }

  /** Sets the write default (text, see `default-value.ts`) of the column added last. */
  withDefault(defaultValue: string | undefined): this {
    const last = this.#columns.pop()
    if (last === undefined) {
      throw schemaError(
        "Method 'withDefault(...)' must be called after a column definition, but there is no preceding column defined.",
      )
    }
    const { defaultValue: _old, ...rest } = last
    this.#columns.push(defaultValue === undefined ? rest : { ...rest, defaultValue })
    return this
  }

  /** Declares the primary key, named `PK_<col1>_<col2>`. */
  primaryKey(...columnNames: (string | readonly string[])[]): this {
    const names = columnNames.flat()
    return this.primaryKeyNamed(`PK_${names.join('_')}`, names)
  }

  primaryKeyNamed(constraintName: string, columnNames: readonly string[]): this {
    if (this.#primaryKey !== undefined) throw schemaError('Multiple primary keys are not supported.')
    if (columnNames.length === 0) {
      throw schemaError('Primary key constraint must be defined for at least a single column.')
    }
    if (constraintName.trim() === '') throw schemaError('Primary key constraint name must not be empty.')
    this.#primaryKey = { constraintName, columnNames: [...columnNames] }
    return this
  }

  /** Declares the (single) auto-increment column. */
  enableAutoIncrement(columnName: string): this {
    if (this.#autoIncrement.length > 0)
      throw schemaError('Multiple auto increment columns are not supported yet.')
    this.#autoIncrement.push(columnName)
    return this
  }

  highestFieldId(id: number): this {
    this.#highestFieldId = id
    return this
  }

  build(): Schema {
    return new Schema({
      columns: this.#columns,
      ...(this.#primaryKey === undefined ? {} : { primaryKey: this.#primaryKey }),
      autoIncrementColumnNames: this.#autoIncrement,
      highestFieldId: this.#highestFieldId,
    })
  }

  #reassign(type: DataType): DataType {
    switch (type.type) {
      case 'ARRAY':
        return { ...type, elementType: this.#reassign(type.elementType) }
      case 'MAP':
        return { ...type, keyType: this.#reassign(type.keyType), valueType: this.#reassign(type.valueType) }
      case 'ROW':
        return {
          ...type,
          fields: type.fields.map(f => {
            const fieldId = ++this.#highestFieldId
            return { ...f, type: this.#reassign(f.type), fieldId }
          }),
        }
      default:
        return type
    }
  }
}
