import { RouteGroup } from '../http/pipeline.js'
import type { JsonSchema } from '../openapi/json-schema.js'
import { type RouteDeps, TABLE_PARAMS } from './route-deps.js'
import { serveWrite } from './write-request.js'
import type { WriteKind } from './write-rows.js'

const ROWS = { type: 'array', minItems: 1, items: { type: 'object' } } as const

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
          deferJson: true,
        },
        responses: { 200: { description: 'Every row was acknowledged.', schema: result } },
        errors: [404, 409, 413, 501],
        limitClass: 'write',
        idempotent: true,
      },
      input => serveWrite(deps, input, kind),
    )
  }
  return group
}
