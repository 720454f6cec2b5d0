import {
  CompactedKeyDecoder,
  type KeyDecoder,
  type KeyedTable,
  primaryKeyDecoderOf,
  primaryKeyEncoderOf,
} from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import type { PrimaryKeyEncoderFactory } from './kv-schemas.js'

/** Builds the decoder of KV keys of a row type (insert-if-not-exists lookups decode keys). */
export type PrimaryKeyDecoderFactory = (rowType: RowType, keyNames: readonly string[]) => KeyDecoder

export const compactedPrimaryKeyDecoder: PrimaryKeyDecoderFactory = (rowType, keyNames) =>
  CompactedKeyDecoder.of(rowType, keyNames)

/** How a table's KV keys are encoded and decoded. */
export interface KvKeyEncoding {
  readonly primaryKeyEncoder: PrimaryKeyEncoderFactory
  readonly primaryKeyDecoder: PrimaryKeyDecoderFactory
}

/**
 * The KV key encoding of a table, selected as clients select it (`primaryKeyEncoderOf`: the kv
 * format version, whether the bucket key is the primary key, and the lake format), so that recovery
 * re-keys the changelog with the bytes clients look up. A table whose keys cannot be encoded (a
 * Paimon table, an Iceberg key of several columns) still opens, as no client can write to it: the
 * error is raised only when a key is encoded or decoded.
 */
export function kvKeyEncoding(table: KeyedTable): KvKeyEncoding {
  const { tableConfig, isDefaultBucketKey } = table
  return {
    primaryKeyEncoder: (rowType, keyNames) => {
      try {
        return primaryKeyEncoderOf(rowType, keyNames, tableConfig, isDefaultBucketKey)
      } catch (e) {
        return { encodeKey: () => rethrow(e) }
      }
    },
    primaryKeyDecoder: (rowType, keyNames) => {
      try {
        return primaryKeyDecoderOf(rowType, keyNames, tableConfig, isDefaultBucketKey)
      } catch (e) {
        return { decodeKey: () => rethrow(e) }
      }
    },
  }
}

function rethrow(e: unknown): never {
  throw e
}
