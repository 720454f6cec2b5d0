import type { Row, Value } from '@sluice/core'
import { parseDefaultValue, type TableInfo } from '@sluice/core/metadata'
import { invalidArgument } from '../errors/gateway-error.js'
import type { RouteInput } from '../http/pipeline.js'
import { JsonBodyRowReader } from '../json/body-rows.js'
import { JsonRowReader, type JsonRowReaderOptions } from '../json/row-codec.js'
import { arrowRows, tooManyRows } from './arrow-rows.js'
import type { RouteDeps } from './route-deps.js'

export type WriteKind = 'append' | 'upsert' | 'delete'

/** The compiled readers of one kind of write to one row type. */
interface KindReaders {
  readonly rows: JsonRowReader
  readonly body: JsonBodyRowReader
}

/** Readers of whole-row writes by table info, so that requests to a table share them. */
const READERS = new WeakMap<TableInfo, Map<WriteKind, KindReaders>>()

function readerOptions(table: TableInfo, kind: WriteKind, columns?: readonly string[]): JsonRowReaderOptions {
  const pk = table.primaryKeys
  if (kind === 'delete') return { allowed: pk, required: pk }
  // Whole rows take the columns' write defaults; a partial update writes only what it names.
  const defaults = columns === undefined ? writeDefaults(table) : undefined
  const withDefaults = defaults === undefined ? {} : { defaults }
  if (kind === 'upsert')
    return { ...(columns === undefined ? {} : { allowed: columns }), required: pk, ...withDefaults }
  return withDefaults
}

/** Each column's write default (null where none), or undefined when no column has one. */
function writeDefaults(table: TableInfo): Value[] | undefined {
  const columns = table.schema.columns
  if (columns.every(c => c.defaultValue === undefined)) return undefined
  return columns.map(c =>
    c.defaultValue === undefined ? null : parseDefaultValue(c.type, c.defaultValue, c.name),
  )
}

function memberOf(kind: WriteKind): string {
  return kind === 'delete' ? 'keys' : 'rows'
}

function readersOf(table: TableInfo, kind: WriteKind): KindReaders {
  let byKind = READERS.get(table)
  if (byKind === undefined) {
    byKind = new Map()
    READERS.set(table, byKind)
  }
  let readers = byKind.get(kind)
  if (readers === undefined) {
    const rows = new JsonRowReader(table.rowType, readerOptions(table, kind))
    readers = { rows, body: new JsonBodyRowReader(rows.columns, memberOf(kind)) }
    byKind.set(kind, readers)
  }
  return readers
}

/**
 * The rows of a JSON write body read straight from its bytes (whole rows only), or undefined when
 * the body needs the general path (`requestRows`): see JsonBodyRowReader.
 */
export function directJsonRows(
  deps: RouteDeps,
  input: RouteInput,
  table: TableInfo,
  kind: WriteKind,
): Row[] | undefined {
  if (input.format !== 'json') return undefined
  return readersOf(table, kind).body.read(input.bytes, deps.limits.maxRows, deps.limits.maxJsonDepth)
}

/** Decodes and validates every row of the request before anything is written. */
export function requestRows(
  deps: RouteDeps,
  input: RouteInput,
  table: TableInfo,
  kind: WriteKind,
  columns?: readonly string[],
): Row[] {
  const reader =
    columns === undefined
      ? readersOf(table, kind).rows
      : new JsonRowReader(table.rowType, readerOptions(table, kind, columns))
  if (input.format === 'arrow') {
    const decoded = arrowRows(input.bytes, table.rowType, deps.limits.maxRows, deps.limits.maxRequestBytes)
    for (const c of decoded.columns) {
      if (!reader.allows(c)) throw invalidArgument(`Arrow field '${c}': this column cannot be given here`)
    }
    decoded.rows.forEach((row, i) => {
      reader.check(row, `rows[${i}]`)
    })
    return decoded.rows
  }
  const member = memberOf(kind)
  const items = (input.body as Record<string, unknown[]>)[member]
  if (items.length > deps.limits.maxRows) throw tooManyRows(items.length, deps.limits.maxRows)
  return reader.readAll(items, member)
}
