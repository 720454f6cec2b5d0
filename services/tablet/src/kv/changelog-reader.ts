import { ArrowBatchReader } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { type ChangeType, type LogRecordBatch, rowLogRecords } from '@sluice/core/record'
import { CompactedRowDecoder, type Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import type { ChangelogFormat } from './changelog-builder.js'

/** The records of one changelog batch: their change types, and each row decoded on demand. */
export interface ChangelogChanges {
  readonly changeTypes: readonly ChangeType[]
  rowAt(index: number): Row
}

/**
 * Reads a changelog batch written by `ChangelogBuilder` in `format`, with the row type of the
 * batch's schema: the ARROW change-type vector and RecordBatch, or the COMPACTED records.
 */
export function changelogChanges(
  batch: LogRecordBatch,
  rowType: RowType,
  format: ChangelogFormat,
  decoder: CompactedRowDecoder | null = null,
): ChangelogChanges {
  if (batch.recordCount === 0) return { changeTypes: [], rowAt: noRow }
  if (format === 'COMPACTED') {
    const records = rowLogRecords(batch)
    const rows = decoder ?? new CompactedRowDecoder(rowType)
    return { changeTypes: records.map(r => r.changeType), rowAt: i => rows.decode(records[i].row) }
  }
  const types = batch.changeTypes()
  if (types === null) {
    throw new FlussError(
      'CORRUPT_RECORD_EXCEPTION',
      `changelog batch at offset ${batch.baseOffset} is append-only`,
    )
  }
  const reader = new ArrowBatchReader(batch.arrowPayload(), rowType)
  return { changeTypes: Array.from(types) as ChangeType[], rowAt: i => reader.getRow(i) }
}

function noRow(index: number): Row {
  throw new RangeError(`an empty changelog batch has no row ${index}`)
}
