import type { Row, RowType, Value } from '@sluice/core'
import { readArrowStream } from '@sluice/core/arrow'
import { GatewayError, invalidArgument } from '../errors/gateway-error.js'
import { arrowValueConverter } from './arrow-values.js'

export interface ArrowRows {
  readonly rows: Row[]
  /** Table column names the stream carries. */
  readonly columns: readonly string[]
}

/**
 * Decodes an Arrow IPC stream body into full-width rows of `rowType`: fields are matched to
 * columns by name (columns the stream lacks are null), field types must match the column types
 * (nested children too, see `arrowValueConverter`), and decimals are rescaled exactly to the
 * column's scale. Refuses more than `maxRows` rows before decoding their values.
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
    return { i, column, convert: arrowValueConverter(column.type, field.type, field.name) }
  })
  const total = stream.batches.reduce((sum, b) => sum + b.recordCount, 0)
  if (total > maxRows) throw tooManyRows(total, maxRows)
  const rows: Row[] = []
  for (const batch of stream.batches) {
    for (let r = 0; r < batch.recordCount; r++) {
      const row = new Array<Value>(rowType.fields.length).fill(null)
      const path = `rows[${rows.length}]`
      for (let f = 0; f < targets.length; f++) {
        const t = targets[f]
        row[t.i] = t.convert(batch.getValue(r, f), `${path}.${t.column.name}`)
      }
      rows.push(row)
    }
  }
  return { rows, columns: targets.map(t => t.column.name) }
}

export function tooManyRows(count: number, maxRows: number): GatewayError {
  return new GatewayError(
    'limit_exceeded',
    `The request has ${count} rows; at most ${maxRows} are allowed (gateway.rest.write.max-rows).`,
  )
}
