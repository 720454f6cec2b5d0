import type { Row } from '@sluice/core'
import type { TableInfo } from '@sluice/core/metadata'
import { TableChangedError } from '../backend/gateway-backend.js'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import type { RouteInput, RouteOutput } from '../http/pipeline.js'
import { runIdempotentWrite } from './idempotent-write.js'
import { sameTable } from './kept-table.js'
import { loadCachedTable, type RouteDeps } from './route-deps.js'
import type { CachedTableInfo } from './table-info-cache.js'
import { directJsonRows, requestRows, type WriteKind } from './write-rows.js'

/** A validated write, ready to run. */
type PreparedWrite = () => Promise<RouteOutput>

/**
 * Serves one write request: the whole request is validated against the table's info, then
 * written. The info may be kept from an earlier request (TableInfoCache), so it is checked against
 * a fresh load whenever it could be stale: when the request does not fit a kept info, and when the
 * backend finds that the table it writes to is no longer the one the info describes (it then
 * writes nothing). The request is then validated again and written once more; a write is never
 * made with rows validated against another table or schema. A failed write forgets the kept info.
 */
export async function serveWrite(deps: RouteDeps, input: RouteInput, kind: WriteKind): Promise<RouteOutput> {
  let target = await writeTarget(deps, input, kind, false)
  for (let retried = false; ; retried = true) {
    let written: Promise<RouteOutput>
    try {
      // Started at once and not kept: nothing here holds the validated rows while the cluster answers.
      written = (await prepareWrite(deps, input, kind, target.info))()
    } catch (e) {
      if (retried || !(e instanceof TableChangedError || (!target.loaded && isRowError(input, e)))) throw e
      const previous = target.info
      target = await writeTarget(deps, input, kind, true)
      if (!(e instanceof TableChangedError) && sameTable(previous, target.info)) throw e
      continue
    }
    try {
      return await written
    } catch (e) {
      deps.tableInfo.invalidate(target.info.tablePath)
      if (retried || !(e instanceof TableChangedError)) throw e
      target = await writeTarget(deps, input, kind, true)
    }
  }
}

/**
 * Whether a validation error is about the rows (which a newer schema might take), not the body:
 * a JSON body the general parser refuses throws its own error here.
 */
function isRowError(input: RouteInput, e: unknown): boolean {
  if (!(e instanceof GatewayError && e.code === 'invalid_argument')) return false
  if (input.format === 'json') void input.body
  return true
}

/**
 * The table a write goes to (`fresh`: loaded now, not kept), checked to take this kind of write;
 * a kept info that does not is loaded again first. A bad JSON body is reported before any of
 * these errors, as on every route.
 */
async function writeTarget(
  deps: RouteDeps,
  input: RouteInput,
  kind: WriteKind,
  fresh: boolean,
): Promise<CachedTableInfo> {
  try {
    let target = await loadCachedTable(deps, input.ctx, input.params, fresh)
    if (!target.loaded && kindProblem(target.info, kind) !== undefined) {
      target = await loadCachedTable(deps, input.ctx, input.params, true)
    }
    const problem = kindProblem(target.info, kind)
    if (problem !== undefined) throw new GatewayError('failed_precondition', problem)
    if (kind === 'upsert' && input.format === 'json' && input.query.columns !== undefined) {
      throw invalidArgument(
        "With a JSON body, name partial-update columns in the body's 'columns', not the query.",
      )
    }
    return target
  } catch (e) {
    if (input.format === 'json') void input.body
    throw e
  }
}

function kindProblem(table: TableInfo, kind: WriteKind): string | undefined {
  const name = `${table.tablePath.databaseName}.${table.tablePath.tableName}`
  if (kind === 'append' && table.hasPrimaryKey) {
    return `Table ${name} has a primary key: use upsert and delete, not append.`
  }
  if (kind !== 'append' && !table.hasPrimaryKey)
    return `Table ${name} is a log table: only append is possible.`
  return undefined
}

/** The columns a partial upsert updates: the named ones plus the primary key. */
function targetColumns(table: TableInfo, named: readonly string[] | undefined): string[] | undefined {
  if (named === undefined) return undefined
  const known = new Set(table.rowType.fields.map(f => f.name))
  for (const name of named) if (!known.has(name)) throw invalidArgument(`columns: no such column '${name}'`)
  const set = new Set([...table.primaryKeys, ...named])
  return table.rowType.fields.map(f => f.name).filter(n => set.has(n))
}

/** Validates the whole request against `table`; nothing is written before the result is called. */
async function prepareWrite(
  deps: RouteDeps,
  input: RouteInput,
  kind: WriteKind,
  table: TableInfo,
): Promise<PreparedWrite> {
  if (kind === 'append' && input.format !== undefined && deps.backend.prepareBodyAppend) {
    // A body that needs no row-by-row write is appended as log batches the backend encodes.
    const prepared = await deps.backend.prepareBodyAppend(
      input.ctx,
      table,
      { format: input.format, bytes: input.bytes },
      {
        maxRows: deps.limits.maxRows,
        maxUncompressedBytes: deps.limits.maxRequestBytes,
        maxJsonDepth: deps.limits.maxJsonDepth,
      },
    )
    if (prepared !== undefined) {
      return () =>
        runIdempotentWrite(deps.idempotency, input, prepared.rowCount, indexes => {
          if (indexes.length === prepared.rowCount) return prepared.write(input.ctx)
          const rows = requestRows(deps, input, table, kind, undefined)
          return deps.backend.append(
            input.ctx,
            table,
            indexes.map(i => rows[i]),
          )
        })
    }
  }
  const direct = directJsonRows(deps, input, table, kind)
  if (direct !== undefined) return () => writeAll(deps, input, table, kind, direct, undefined)
  const named =
    input.format === 'arrow'
      ? (input.query.columns as string[] | undefined)
      : (input.body as { columns?: string[] }).columns
  const columns = kind === 'upsert' ? targetColumns(table, named) : undefined
  const rows = requestRows(deps, input, table, kind, columns)
  if (rows.length === 0) throw invalidArgument('The request has no rows.')
  return () => writeAll(deps, input, table, kind, rows, columns)
}

/** Writes validated rows (retries with an Idempotency-Key write only the unacknowledged ones). */
function writeAll(
  deps: RouteDeps,
  input: RouteInput,
  table: TableInfo,
  kind: WriteKind,
  rows: readonly Row[],
  columns: readonly string[] | undefined,
): Promise<RouteOutput> {
  return runIdempotentWrite(deps.idempotency, input, rows.length, indexes => {
    const subset = indexes.length === rows.length ? rows : indexes.map(i => rows[i])
    if (kind === 'append') return deps.backend.append(input.ctx, table, subset)
    if (kind === 'delete') return deps.backend.delete(input.ctx, table, subset)
    return deps.backend.upsert(input.ctx, table, subset, columns)
  })
}
