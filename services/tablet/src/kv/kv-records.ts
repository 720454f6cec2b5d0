import { FlussError } from '@sluice/core/errors'
import {
  KV_BATCH_HEADER_SIZE,
  KV_RECORD_LENGTH_SIZE,
  type KvRecordBatch,
  readUnsignedVarInt,
} from '@sluice/core/kvbatch'
import { invalidValue, type Row, varIntSize } from '@sluice/core/row'
import { keyIdOf } from './kv-pre-write-buffer.js'
import type { KvValue, SchemaContext } from './kv-schemas.js'

/** One record of a put: the key (a view of the caller-owned batch) and the new value, or null to delete. */
export interface DecodedRecord {
  readonly key: Buffer
  readonly keyId: string
  value: KvValue | null
  /** Where the row lies in the batch (length -1 for a delete). */
  readonly rowOffset: number
  readonly rowLength: number
}

/** Checks a put's schema id against the latest (Fluss: SCHEMA_NOT_EXIST, "Invalid schema id"). */
export function checkBatchSchemaId(schemaId: number, latestSchemaId: number): void {
  if (schemaId > latestSchemaId || schemaId < 0) {
    throw new FlussError(
      'SCHEMA_NOT_EXIST',
      `Invalid schema id: ${schemaId}, latest schema id: ${latestSchemaId}`,
    )
  }
}

/**
 * The keys and row positions of a validated KV batch, in order (rows still encoded, so the stored
 * values can be read while they decode). An empty key is INVALID_REQUEST (the empty key is reserved).
 * The batch must be owned by the caller: keys are views of it.
 */
export function parseRecords(batch: KvRecordBatch): DecodedRecord[] {
  const buf = batch.bytes
  const records: DecodedRecord[] = new Array(batch.recordCount)
  let pos = KV_BATCH_HEADER_SIZE
  for (let i = 0; i < records.length; i++) {
    const end = pos + KV_RECORD_LENGTH_SIZE + buf.readInt32LE(pos)
    const keyLength = readUnsignedVarInt(buf, pos + KV_RECORD_LENGTH_SIZE, end)
    if (keyLength === 0) throw new FlussError('INVALID_REQUEST', `KV record ${i} has an empty key`)
    const keyStart = pos + KV_RECORD_LENGTH_SIZE + varIntSize(keyLength)
    const keyEnd = keyStart + keyLength
    const key = buf.subarray(keyStart, keyEnd)
    records[i] = {
      key,
      keyId: keyIdOf(key),
      value: null,
      rowOffset: keyEnd,
      rowLength: keyEnd === end ? -1 : end - keyEnd,
    }
    pos = end
  }
  return records
}

/**
 * Decodes the rows of parsed records with the row type of the batch's schema, before anything is
 * applied: an undecodable row is CORRUPT_RECORD_EXCEPTION, a NULL in a NOT NULL column that the put
 * writes INVALID_REQUEST. Each stored value gets its own buffer `[schemaId][row]`. Rows of an older
 * schema than `latest` (a writer that has not refreshed) become values of `latest`, mapped by
 * column id, so that everything a put merges and logs is of one schema.
 */
export function decodeRecords(
  batch: KvRecordBatch,
  records: readonly DecodedRecord[],
  schema: SchemaContext,
  targetColumns: readonly number[] | null,
  latest: SchemaContext = schema,
): void {
  const mapping = latest === schema ? undefined : latest.mappingFrom(schema)
  const notNull =
    targetColumns === null
      ? schema.notNullIndexes
      : schema.notNullIndexes.filter(i => targetColumns.includes(i))
  const buf = batch.bytes
  for (let i = 0; i < records.length; i++) {
    const record = records[i]
    if (record.rowLength < 0) continue
    let row: Row
    try {
      row = schema.decoder.decode(buf, record.rowOffset, record.rowLength)
    } catch (e) {
      if (e instanceof FlussError) throw new FlussError(e.spec, `KV record ${i}: ${e.message}`)
      throw e
    }
    for (const c of notNull) {
      if (row[c] === null) {
        const field = schema.rowType.fields[c]
        throw invalidValue(field.name, field.type, null, `KV record ${i}: the column is NOT NULL`)
      }
    }
    if (mapping !== undefined) {
      record.value = latest.encode(mapping.map(row))
      continue
    }
    const bytes = Buffer.allocUnsafe(2 + record.rowLength)
    bytes.writeInt16LE(schema.schemaId, 0)
    buf.copy(bytes, 2, record.rowOffset, record.rowOffset + record.rowLength)
    record.value = { schemaId: schema.schemaId, row, bytes }
  }
}

/**
 * The target columns of a partial update as positions of `latest`: a writer of an older schema
 * names positions of its schema, matched by column id (columns dropped since are left out).
 */
export function latestTargetColumns(
  targetColumns: readonly number[] | null,
  schema: SchemaContext,
  latest: SchemaContext,
): readonly number[] | null {
  if (targetColumns === null || schema === latest) return targetColumns
  for (const c of targetColumns) {
    if (!Number.isInteger(c) || c < 0 || c >= schema.fieldCount) {
      throw new FlussError(
        'INVALID_TARGET_COLUMN',
        `The target write column index ${c} is out of range: schema ${schema.schemaId} of the table has ${schema.fieldCount} columns.`,
      )
    }
  }
  return latest.mappingFrom(schema).targetPositions(targetColumns)
}

/**
 * Fluss's rules for target columns against an auto-increment column: a table with one needs explicit
 * target columns that leave it out (its values are assigned on insert).
 */
export function checkAutoIncrementTargets(
  latest: SchemaContext,
  targetColumns: readonly number[] | null,
): void {
  const index = latest.autoIncrementIndex
  if (index < 0) return
  const name = latest.rowType.fields[index].name
  if (targetColumns === null) {
    throw new FlussError(
      'INVALID_TARGET_COLUMN',
      `The table contains an auto-increment column [${name}], but update target columns are not explicitly specified. ` +
        'Please specify the update target columns and exclude the auto-increment column from them.',
    )
  }
  if (targetColumns.includes(index)) {
    throw new FlussError(
      'INVALID_TARGET_COLUMN',
      `Auto-increment column [${name}] at index ${index} must not be included in target columns.`,
    )
  }
}
