import { FlussError } from '../errors/index.js'
import { asBuffer } from './compacted/compacted-row-reader.js'

/** Bytes of the schema id that prefixes every stored KV value. */
export const SCHEMA_ID_LENGTH = 2
export const MAX_SCHEMA_ID = 32_767

/** A KV value: the schema the row was encoded with, and the row bytes (a view, not a copy). */
export interface BinaryValue {
  readonly schemaId: number
  readonly row: Buffer
}

export function checkSchemaId(schemaId: number): void {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > MAX_SCHEMA_ID) {
    throw new FlussError('INVALID_REQUEST', `Schema id ${schemaId} is not in [0, ${MAX_SCHEMA_ID}]`)
  }
}

/**
 * The value stored in the KV store and returned by lookups: `[schemaId int16 LE][row bytes]`
 * (Fluss's ValueEncoder).
 */
export function encodeValue(schemaId: number, row: Uint8Array): Buffer {
  checkSchemaId(schemaId)
  const out = Buffer.allocUnsafe(SCHEMA_ID_LENGTH + row.length)
  out.writeInt16LE(schemaId, 0)
  out.set(row, SCHEMA_ID_LENGTH)
  return out
}

/** Splits a stored value into its schema id and row bytes (Fluss's ValueDecoder). */
export function decodeValue(value: Uint8Array): BinaryValue {
  if (value.length < SCHEMA_ID_LENGTH) {
    throw new FlussError(
      'CORRUPT_RECORD_EXCEPTION',
      `A KV value of ${value.length} bytes cannot hold its ${SCHEMA_ID_LENGTH}-byte schema id`,
    )
  }
  const buf = asBuffer(value)
  return { schemaId: buf.readInt16LE(0), row: buf.subarray(SCHEMA_ID_LENGTH) }
}
