import { FlussError } from '@sluice/core/errors'
import { KvRecordBatchBuilder } from '@sluice/core/kvbatch'
import type { Value } from '@sluice/core/row'
import { compactedPrimaryKeyDecoder, type PrimaryKeyDecoderFactory } from './kv-key-encoding.js'
import type { SchemaContext } from './kv-schemas.js'

/**
 * The KV batch of an insert-if-not-exists lookup (Fluss's `KeyRecordBatch`): for each key a row
 * holding the decoded primary-key values and NULL elsewhere, to be put as a partial update of the
 * primary-key columns (so a key that exists meanwhile is left unchanged, and auto-increment columns
 * get their ids). Keys are decoded with `keyDecoder`, the table's primary-key decoding. Keys of
 * partitioned tables do not hold the partition columns: refused.
 */
export function insertIfNotExistsBatch(
  latest: SchemaContext,
  keys: readonly Buffer[],
  keyDecoder: PrimaryKeyDecoderFactory = compactedPrimaryKeyDecoder,
): Buffer {
  const primaryKeys = latest.schema.primaryKeyColumnNames
  if (primaryKeys.length !== latest.physicalPrimaryKeys.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      'Lookups with insert-if-not-exists are not supported on partitioned tables yet.',
    )
  }
  const decoder = keyDecoder(latest.rowType, primaryKeys)
  const positions = latest.primaryKeyIndexes
  const builder = new KvRecordBatchBuilder({
    schemaId: latest.schemaId,
    writeLimitBytes: Number.MAX_SAFE_INTEGER,
  })
  for (const key of keys) {
    const keyValues = decoder.decodeKey(key)
    const row: Value[] = new Array(latest.fieldCount).fill(null)
    for (let i = 0; i < positions.length; i++) row[positions[i]] = keyValues[i]
    builder.append(key, latest.encoder.encode(row))
  }
  return Buffer.from(builder.build())
}
