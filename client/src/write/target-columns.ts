import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { tableName } from '../table/key-encoding.js'

const list = (names: readonly string[]) => `[${names.join(', ')}]`

function invalid(message: string): FlussError {
  return new FlussError('INVALID_TARGET_COLUMN', message)
}

/**
 * Resolves the columns of a partial update (indexes or names, in the caller's order) to column
 * indexes, with Fluss's messages for an index outside the table or an unknown name. A repeated
 * column is refused as well. Errors are INVALID_TARGET_COLUMN.
 */
export function resolveTargetColumns(info: TableInfo, columns: readonly (number | string)[]): number[] {
  const names = info.rowType.fields.map(f => f.name)
  const targets = columns.map(c => {
    if (typeof c === 'string') {
      const index = names.indexOf(c)
      if (index < 0) throw invalid(`Can not find target column: ${c} for table ${tableName(info)}.`)
      return index
    }
    if (!Number.isInteger(c) || c < 0 || c >= names.length) {
      throw invalid(
        `Invalid target column index: ${c} for table ${tableName(info)}. The table only has ${names.length} columns.`,
      )
    }
    return c
  })
  const seen = new Set<number>()
  for (const t of targets) {
    if (seen.has(t))
      throw invalid(`The target write columns ${list(targets.map(i => names[i]))} repeat column ${names[t]}.`)
    seen.add(t)
  }
  return targets
}

/**
 * Fluss's checks when an upsert writer is created (`UpsertWriterImpl.sanityCheck`): a full-row writer
 * must not write a table with an auto-increment column; a partial update must name every primary
 * key column, must not name an auto-increment column, and every other column of the table must be
 * nullable (it is NULL for keys the update inserts). Errors are INVALID_TARGET_COLUMN.
 */
export function checkTargetColumns(info: TableInfo, targets: readonly number[] | undefined): void {
  const fields = info.rowType.fields
  const autoIncrement = info.schema.autoIncrementColumnNames
  if (targets === undefined) {
    if (autoIncrement.length > 0) {
      throw invalid(
        `This table has auto increment column ${list(autoIncrement)}. Explicitly specifying values for an auto increment column is not allowed. Please specify non-auto-increment columns as target columns using partialUpdate first.`,
      )
    }
    return
  }
  const targetSet = new Set(targets)
  const index = (name: string) => fields.findIndex(f => f.name === name)
  for (const key of info.primaryKeys) {
    if (!targetSet.has(index(key))) {
      const targetNames = targets.map(t => fields[t].name)
      throw invalid(
        `The target write columns ${list(targetNames)} must contain the primary key columns ${list(info.primaryKeys)}.`,
      )
    }
  }
  for (const name of autoIncrement) {
    if (targetSet.has(index(name))) {
      throw invalid(`Explicitly specifying values for the auto increment column ${name} is not allowed.`)
    }
  }
  const exempt = new Set([...info.primaryKeys, ...autoIncrement])
  for (const f of fields) {
    if (!exempt.has(f.name) && !f.type.nullable) {
      throw invalid(
        `Partial Update requires all columns except primary key to be nullable, but column ${f.name} is NOT NULL.`,
      )
    }
  }
}
