import { arrowNodeCount, readRecordBatchInfo } from '@sluice/core/arrow'
import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError, isFlussError } from '@sluice/core/errors'
import { tablePathToString } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'
import type { ValidatedRecords } from '../log/index.js'
import type { Replica } from './replica.js'

function corrupt(replica: Replica, batchIndex: number, message: string): FlussError {
  return new FlussError(
    'CORRUPT_RECORD_EXCEPTION',
    `batch ${batchIndex} of the produce request for ${replica.name} is refused: ${message}`,
  )
}

/**
 * Checks, on the leader and before anything is appended, that a produce request's records fit the
 * table (a batch that does not would block every reader of the bucket once stored), and returns
 * them parsed, to be appended as they are:
 *  - primary-key tables take no PRODUCE_LOG (their log is written by PUT_KV);
 *  - every batch is whole and intact (the log's own validation: framing, magic, CRC, counts);
 *  - each ARROW batch names a schema id the table has, and its Arrow message header holds as
 *    many rows as the batch header and as many field nodes as that schema's columns have (one per
 *    column and one per nested child of its ARRAY, MAP and ROW columns).
 * Only headers are read (no row is decoded). Any failure refuses the bucket's records whole.
 */
export async function validateProduceRecords(
  replica: Replica,
  records: Uint8Array,
): Promise<ValidatedRecords> {
  const { tableInfo } = replica
  if (tableInfo.hasPrimaryKey) {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      `Table ${tablePathToString(tableInfo.tablePath)} is not a Log Table and doesn't support AppendWriter.`,
    )
  }
  const validated = replica.logTablet.validate(records)
  if (tableInfo.tableConfig.get(TABLE_LOG_FORMAT) !== 'ARROW') return validated
  for (let index = 0; index < validated.batches.length; index++) {
    const batch = validated.batches[index]
    const payload = batch.arrowPayload()
    if (batch.recordCount > 0 || payload.length > 0) {
      const rowType = await schemaRowType(replica, index, batch.schemaId)
      checkArrowShape(replica, index, payload, batch.recordCount, rowType)
    }
  }
  return validated
}

async function schemaRowType(replica: Replica, index: number, schemaId: number): Promise<RowType> {
  try {
    return await replica.schemas.rowType(schemaId)
  } catch (e) {
    if (isFlussError(e) && e.errorName === 'SCHEMA_NOT_EXIST')
      throw corrupt(replica, index, `the table has no schema with id ${schemaId}`)
    throw e
  }
}

function checkArrowShape(
  replica: Replica,
  index: number,
  payload: Buffer,
  recordCount: number,
  rowType: RowType,
): void {
  let info: ReturnType<typeof readRecordBatchInfo>
  try {
    info = readRecordBatchInfo(payload)
  } catch (e) {
    throw corrupt(replica, index, `the records are not an Arrow record batch (${String(e)})`)
  }
  if (info.messageSizeInBytes > payload.length) {
    throw corrupt(
      replica,
      index,
      `the Arrow message needs ${info.messageSizeInBytes} bytes, the batch holds ${payload.length}`,
    )
  }
  if (info.recordCount !== recordCount) {
    throw corrupt(
      replica,
      index,
      `the batch header counts ${recordCount} records, its Arrow body holds ${info.recordCount} rows`,
    )
  }
  const nodes = arrowNodeCount(rowType)
  if (info.fieldCount !== nodes) {
    throw corrupt(
      replica,
      index,
      nodes === rowType.fields.length
        ? `the Arrow body has ${info.fieldCount} columns, the schema has ${nodes}`
        : `the Arrow body has ${info.fieldCount} field nodes, the schema's ${rowType.fields.length} columns have ${nodes}`,
    )
  }
}
