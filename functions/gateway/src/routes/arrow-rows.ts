import { type DataType, Decimal, type Row, type RowType, typeToString, type Value } from '@sluice/core'
import { readArrowStream } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { unscaledForColumn } from '@sluice/core/row'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'

/**
 * Type roots an Arrow field may carry for a column of the given root: Arrow has no CHAR/BINARY(n)
 * of its own, and Fluss writes TIMESTAMP_LTZ columns as Arrow timestamps without a time zone (the
 * values are instants either way), so an LTZ column takes a timestamp with or without one.
 */
function compatible(column: DataType, field: DataType): boolean {
  if (column.type === field.type) return true
  if (column.type === 'CHAR') return field.type === 'STRING'
  if (column.type === 'BINARY') return field.type === 'BYTES'
  if (column.type === 'TIMESTAMP_WITH_LOCAL_TIME_ZONE') return field.type === 'TIMESTAMP_WITHOUT_TIME_ZONE'
  return false
}

export interface ArrowRows {
  readonly rows: Row[]
  /** Table column names the stream carries. */
  readonly columns: readonly string[]
}

/**
 * Decodes an Arrow IPC stream body into full-width rows of `rowType`: fields are matched to
 * columns by name (columns the stream lacks are null), field types must match the column types,
 * and decimals are rescaled exactly to the column's scale. Refuses more than `maxRows` rows
 * before decoding their values.
 */
export function arrowRows(
  bytes: Uint8Array,
  rowType: RowType,
  maxRows: number,
  maxUncompressedBytes: number,
): ArrowRows {
  const stream = readArrowStream(bytes, { maxUncompressedBytes })
  if (stream.rowType === null) {
    throw invalidArgument('The Arrow stream has a field type with no Fluss equivalent.')
  }
  const index = new Map(rowType.fields.map((f, i) => [f.name, i]))
  const targets = stream.rowType.fields.map(field => {
    const i = index.get(field.name)
    if (i === undefined) throw invalidArgument(`Arrow field '${field.name}': no such column in the table`)
    const column = rowType.fields[i]
    if (!compatible(column.type, field.type)) {
      throw invalidArgument(
        `Arrow field '${field.name}' has type ${typeToString(field.type)}, the column is ${typeToString(column.type)}`,
      )
    }
    return { i, column }
  })
  const total = stream.batches.reduce((sum, b) => sum + b.recordCount, 0)
  if (total > maxRows) throw tooManyRows(total, maxRows)
  const rows: Row[] = []
  for (const batch of stream.batches) {
    for (let r = 0; r < batch.recordCount; r++) {
      const row = new Array<Value>(rowType.fields.length).fill(null)
      const path = `rows[${rows.length}]`
      for (let f = 0; f < targets.length; f++)
        row[targets[f].i] = normalize(batch.getValue(r, f), targets[f].column, path)
      rows.push(row)
    }
  }
  return { rows, columns: targets.map(t => t.column.name) }
}

function normalize(value: Value, column: RowType['fields'][number], path: string): Value {
  if (value === null || column.type.type !== 'DECIMAL') return value
  try {
    return new Decimal(unscaledForColumn(column.type, value, column.name), column.type.scale)
  } catch (e) {
    if (e instanceof FlussError) throw invalidArgument(`${path}.${column.name}: ${e.message}`)
    throw e
  }
}

export function tooManyRows(count: number, maxRows: number): GatewayError {
  return new GatewayError(
    'limit_exceeded',
    `The request has ${count} rows; at most ${maxRows} are allowed (gateway.rest.write.max-rows).`,
  )
}
