import { type ProjectedColumn, projectRecordBatch, projectWithNullColumns } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { LENGTH_OFFSET, LOG_OVERHEAD, MemoryLogRecords } from '@sluice/core/record'
import type { RowType } from '@sluice/core/types'

/** The row type of the rows written with a schema id (batches carry the id they were written with). */
export type RowTypeLookup = (schemaId: number) => RowType | Promise<RowType>

/** The columns of a projection: positions of `rowType` (the schema the reader named). */
export interface LogProjection {
  readonly schemaId: number
  readonly rowType: RowType
  readonly fields: readonly number[]
}

/**
 * Server-side column projection of fetched ARROW batches (Fluss's `FileLogProjection`): each batch
 * keeps its header (Length rewritten) and change-type vector, and its Arrow message is replaced by
 * one holding only the projected columns, buffers copied unchanged (compressed ones too). The CRC is
 * left as it was: clients skip the CRC check of projected batches. Empty batches pass unchanged.
 *
 * The projected columns are those of `projection.schemaId`, found in each batch's own schema by
 * column id: a batch written under another schema version gives the same columns (renamed ones
 * under their id, widened ones in the type they were written with, which the batch's schema id
 * tells), and a column its schema lacks (added since) comes back all NULL, so every projected batch
 * has the columns asked for, in that order.
 */
export async function projectLogRecords(
  records: Buffer,
  rowTypeOf: RowTypeLookup,
  projection: LogProjection,
): Promise<Buffer> {
  if (records.length === 0) return records
  const parts: Uint8Array[] = []
  let total = 0
  const plans = new Map<number, ProjectedColumn[] | null>()
  for (const batch of new MemoryLogRecords(records).batches()) {
    if (batch.recordCount === 0) {
      parts.push(batch.bytes())
      total += batch.sizeInBytes
      continue
    }
    const rowType = await rowTypeOf(batch.schemaId)
    let plan = plans.get(batch.schemaId)
    if (plan === undefined) {
      plan = batch.schemaId === projection.schemaId ? null : columnsById(rowType, projection)
      plans.set(batch.schemaId, plan)
    }
    const message =
      plan === null
        ? projectRecordBatch(batch.arrowPayload(), rowType, projection.fields)
        : projectWithNullColumns(batch.arrowPayload(), rowType, plan)
    const headerSize = batch.layout.headerSize
    const vectorSize = batch.appendOnly ? 0 : batch.recordCount
    const head = Buffer.from(batch.buffer.subarray(batch.position, batch.position + headerSize + vectorSize))
    const size = head.length + message.length
    head.writeInt32LE(size - LOG_OVERHEAD, LENGTH_OFFSET)
    parts.push(head, message)
    total += size
  }
  return Buffer.concat(parts, total)
}

/** The projected columns of `projection` in a batch of `source`, matched by column id. */
export function columnsById(source: RowType, projection: LogProjection): ProjectedColumn[] {
  const byId = new Map(source.fields.map((f, i) => [f.fieldId, i]))
  return projection.fields.map(p => {
    const target = projection.rowType.fields[p]
    return byId.get(target.fieldId) ?? { nullOf: target.type, name: target.name }
  })
}

/**
 * Projected field indexes must be ascending, unique and within the row type (Fluss's rules and
 * texts, `FileLogProjection`).
 */
export function checkProjectedFields(rowType: RowType, projectedFields: readonly number[]): void {
  const shown = `[${projectedFields.join(', ')}]`
  const fail = (message: string) => new FlussError('INVALID_COLUMN_PROJECTION', message)
  let previous = -1
  for (const i of projectedFields) {
    if (!Number.isInteger(i) || i < previous) {
      throw fail(`The projection indexes should be in field order, but is ${shown}`)
    }
    if (i === previous) {
      throw fail(`The projection indexes should not contain duplicated fields, but is ${shown}`)
    }
    if (i >= rowType.fields.length) {
      throw fail(`Projected fields ${shown} is out of bound for schema with ${rowType.fields.length} fields.`)
    }
    previous = i
  }
}
