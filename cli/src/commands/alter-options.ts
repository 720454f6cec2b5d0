import type { TableChanges } from '@sluice/client'
import type { DataType } from '@sluice/core/types'
import { CliError, EXIT } from './context.js'

/** The flags of `table alter`, as commander collects them. */
export interface AlterOptions {
  readonly set?: readonly string[]
  readonly reset?: readonly string[]
  readonly addColumn?: readonly string[]
  readonly dropColumn?: readonly string[]
  readonly renameColumn?: readonly string[]
  readonly modifyColumn?: readonly string[]
  readonly columnComment?: readonly string[]
  readonly dropColumnComment?: readonly string[]
  readonly columnDefault?: readonly string[]
  readonly dropColumnDefault?: readonly string[]
}

type ParseColumn = (spec: string) => { name: string; type: DataType }

/** `k=v` pairs in order; a pair without '=' (or with an empty key) is a usage error. */
export function keyValuePairs(pairs: readonly string[] | undefined, flag: string): [string, string][] {
  return (pairs ?? []).map(p => {
    const eq = p.indexOf('=')
    if (eq <= 0) throw new CliError(`${flag} '${p}' is not key=value`, EXIT.USAGE)
    return [p.slice(0, eq), p.slice(eq + 1)]
  })
}

/**
 * The changes of `table alter`: properties (`--set`, `--reset`) or columns. `--column-comment` and
 * `--column-default` apply to a column added by the same command or else modify an existing one;
 * `--modify-column name:TYPE` changes a type (a widening). Nothing to alter is a usage error.
 */
export function tableChangesOf(o: AlterOptions, parseColumn: ParseColumn): TableChanges {
  const comments = new Map(keyValuePairs(o.columnComment, '--column-comment'))
  const defaults = new Map(keyValuePairs(o.columnDefault, '--column-default'))
  const addColumns = (o.addColumn ?? []).map(spec => {
    const { name, type } = parseColumn(spec)
    const comment = comments.get(name)
    const defaultValue = defaults.get(name)
    comments.delete(name)
    defaults.delete(name)
    return {
      name,
      type,
      ...(comment === undefined ? {} : { comment }),
      ...(defaultValue === undefined ? {} : { defaultValue }),
    }
  })
  const modified = new Map<
    string,
    { name: string; type?: DataType; comment?: string | null; defaultValue?: string | null }
  >()
  const modify = (name: string) => {
    let m = modified.get(name)
    if (m === undefined) {
      m = { name }
      modified.set(name, m)
    }
    return m
  }
  for (const spec of o.modifyColumn ?? []) {
    const { name, type } = parseColumn(spec)
    modify(name).type = type
  }
  for (const [name, comment] of comments) modify(name).comment = comment
  for (const [name, value] of defaults) modify(name).defaultValue = value
  for (const name of o.dropColumnComment ?? []) modify(name).comment = null
  for (const name of o.dropColumnDefault ?? []) modify(name).defaultValue = null
  const renameColumns = keyValuePairs(o.renameColumn, '--rename-column').map(([name, newName]) => ({
    name,
    newName,
  }))
  const set = Object.fromEntries(keyValuePairs(o.set, '--set'))
  const reset = o.reset ?? []
  const dropColumns = o.dropColumn ?? []
  const columnChanges = addColumns.length + dropColumns.length + renameColumns.length + modified.size
  const propertyChanges = Object.keys(set).length + reset.length
  if (columnChanges + propertyChanges === 0)
    throw new CliError('nothing to alter: give --set, --reset or a column change', EXIT.USAGE)
  if (columnChanges > 0 && propertyChanges > 0)
    throw new CliError('properties and columns are altered by separate commands', EXIT.USAGE)
  return { set, reset, addColumns, dropColumns, renameColumns, modifyColumns: [...modified.values()] }
}
