import type { Row } from '@sluice/core'
import type { TableInfo } from '@sluice/core/metadata'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import { RouteGroup, type RouteInput } from '../http/pipeline.js'
import { JsonRowReader, type JsonRowReaderOptions } from '../json/row-codec.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { arrowRows, tooManyRows } from './arrow-rows.js'
import { runIdempotentWrite } from './idempotent-write.js'
import { loadTable, type RouteDeps, TABLE_PARAMS } from './route-deps.js'

type WriteKind = 'append' | 'upsert' | 'delete'

const ROWS = { type: 'array', minItems: 1, items: { type: 'object' } } as const

function requireKind(table: TableInfo, kind: WriteKind): void {
  const name = `${table.tablePath.databaseName}.${table.tablePath.tableName}`
  if (kind === 'append' && table.hasPrimaryKey) {
    throw new GatewayError(
      'failed_precondition',
      `Table ${name} has a primary key: use upsert and delete, not append.`,
    )
  }
  if (kind !== 'append' && !table.hasPrimaryKey) {
    throw new GatewayError('failed_precondition', `Table ${name} is a log table: only append is possible.`)
  }
}

/** The columns a partial upsert updates: the named ones plus the primary key. */
function targetColumns(table: TableInfo, named: readonly string[] | undefined): string[] | undefined {
  if (named === undefined) return undefined
  const known = new Set(table.rowType.fields.map(f => f.name))
  for (const name of named) if (!known.has(name)) throw invalidArgument(`columns: no such column '${name}'`)
  const set = new Set([...table.primaryKeys, ...named])
  return table.rowType.fields.map(f => f.name).filter(n => set.has(n))
}

/** Decodes and validates every row of the request before anything is written. */
function requestRows(
  deps: RouteDeps,
  input: RouteInput,
  table: TableInfo,
  kind: WriteKind,
  columns?: readonly string[],
): Row[] {
  const pk = table.primaryKeys
  const options: JsonRowReaderOptions =
    kind === 'delete'
      ? { allowed: pk, required: pk }
      : kind === 'upsert'
        ? { ...(columns === undefined ? {} : { allowed: columns }), required: pk }
        : {}
  const reader = new JsonRowReader(table.rowType, options)
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
  const member = kind === 'delete' ? 'keys' : 'rows'
  const items = (input.body as Record<string, unknown[]>)[member]
  if (items.length > deps.limits.maxRows) throw tooManyRows(items.length, deps.limits.maxRows)
  return reader.readAll(items, member)
}

function writeSpecBody(deps: RouteDeps, kind: WriteKind): JsonSchema {
  const r = deps.runtime.registry
  if (kind === 'append') {
    return r.schema('AppendRequest', {
      type: 'object',
      required: ['rows'],
      additionalProperties: false,
      properties: { rows: ROWS },
    })
  }
  if (kind === 'delete') {
    return r.schema('DeleteRequest', {
      type: 'object',
      required: ['keys'],
      additionalProperties: false,
      properties: { keys: ROWS },
    })
  }
  return r.schema('UpsertRequest', {
    type: 'object',
    required: ['rows'],
    additionalProperties: false,
    properties: {
      rows: ROWS,
      columns: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description: 'Partial update: only these columns (and the primary key) are written.',
      },
    },
  })
}

const SUMMARY: Record<WriteKind, string> = {
  append: 'Append rows to a log table.',
  upsert: 'Insert or update rows of a primary-key table (optionally only some columns).',
  delete: 'Delete rows of a primary-key table by primary key.',
}

/** Writes: append (log tables), upsert and delete (primary-key tables); JSON rows or Arrow streams. */
export function writeRoutes(deps: RouteDeps): RouteGroup {
  const group = new RouteGroup(deps.runtime, '/v1')
  const result = deps.runtime.registry.schema('WriteResult', {
    type: 'object',
    required: ['row_count'],
    additionalProperties: false,
    properties: {
      row_count: { type: 'integer', minimum: 1, description: 'Rows written (all were acknowledged).' },
    },
  })
  for (const kind of ['append', 'upsert', 'delete'] as const) {
    group.add(
      {
        method: 'post',
        path: `/v1/databases/{database}/tables/{table}/${kind}`,
        operationId: `${kind}Rows`,
        summary: SUMMARY[kind],
        description:
          'The whole request is validated before any row is written; errors name the row and column (rows[3].amount). With an Arrow body, fields are matched to columns by name.',
        tag: 'writes',
        pathParams: TABLE_PARAMS,
        ...(kind === 'upsert'
          ? {
              query: {
                columns: {
                  description: 'Partial update columns for Arrow bodies (comma-separated).',
                  schema: { type: 'array', items: { type: 'string' } },
                },
              },
            }
          : {}),
        body: {
          description: kind === 'delete' ? 'Primary keys.' : 'Rows.',
          schema: writeSpecBody(deps, kind),
          arrow: true,
        },
        responses: { 200: { description: 'Every row was acknowledged.', schema: result } },
        errors: [404, 409, 413, 501],
        limitClass: 'write',
        idempotent: true,
      },
      async input => {
        const table = await loadTable(deps, input.ctx, input.params)
        requireKind(table, kind)
        const named =
          input.format === 'arrow'
            ? (input.query.columns as string[] | undefined)
            : (input.body as { columns?: string[] }).columns
        if (kind === 'upsert' && input.format !== 'arrow' && input.query.columns !== undefined) {
          throw invalidArgument(
            "With a JSON body, name partial-update columns in the body's 'columns', not the query.",
          )
        }
        const columns = kind === 'upsert' ? targetColumns(table, named) : undefined
        if (kind === 'append' && input.format === 'arrow' && deps.backend.prepareArrowAppend) {
          // An Arrow body matching the table exactly is appended without decoding rows.
          const prepared = await deps.backend.prepareArrowAppend(input.ctx, table, input.bytes, {
            maxRows: deps.limits.maxRows,
            maxUncompressedBytes: deps.limits.maxRequestBytes,
          })
          if (prepared !== undefined) {
            return runIdempotentWrite(deps.idempotency, input, prepared.rowCount, indexes => {
              if (indexes.length === prepared.rowCount) return prepared.write(input.ctx)
              const rows = requestRows(deps, input, table, kind, columns)
              return deps.backend.append(
                input.ctx,
                table,
                indexes.map(i => rows[i]),
              )
            })
          }
        }
        const rows = requestRows(deps, input, table, kind, columns)
        if (rows.length === 0) throw invalidArgument('The request has no rows.')
        return runIdempotentWrite(deps.idempotency, input, rows.length, indexes => {
          const subset = indexes.length === rows.length ? rows : indexes.map(i => rows[i])
          if (kind === 'append') return deps.backend.append(input.ctx, table, subset)
          if (kind === 'delete') return deps.backend.delete(input.ctx, table, subset)
          return deps.backend.upsert(input.ctx, table, subset, columns)
        })
      },
    )
  }
  return group
}
