import { type BucketingFunction, bucketingFunction } from '../bucketing/index.js'
import {
  type Configuration,
  type DataLakeFormat,
  TABLE_DATALAKE_FORMAT,
  TABLE_KV_FORMAT_VERSION,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import type { RowType } from '../types/data-type.js'
import { IcebergKeyDecoder } from './iceberg-key-decoder.js'
import { IcebergKeyEncoder } from './iceberg-key-encoder.js'
import { CompactedKeyDecoder, CompactedKeyEncoder } from './key-encoder.js'
import type { Row, Value } from './value.js'

/**
 * Which encoder turns a table's keys into bytes (Fluss's `KeyEncoder.ofPrimaryKeyEncoder`,
 * `ofBucketKeyEncoder` and `KeyDecoder.ofPrimaryKeyDecoder`). Clients and the tablet server select
 * with the same functions, so that keys written by one are found by the other, byte for byte.
 *
 * - Bucket keys: the lake's encoder when the table has a lake format (Iceberg: IcebergKeyEncoder;
 *   Lance: Fluss's), CompactedKeyEncoder otherwise.
 * - Primary keys (the KV keys): kv format version 1 uses the bucket-key rule. Version 2 does so only
 *   when the bucket key is the physical primary key; otherwise CompactedKeyEncoder, whose bucket-key
 *   bytes are a prefix of the primary-key bytes (prefix lookups rely on it).
 * - The bucket is the lake's bucketing function applied to the encoded bucket key.
 *
 * Paimon's key encoding is not implemented: INVALID_CONFIG_EXCEPTION wherever it would be used.
 */

/** Encodes the key columns of rows of one row type. */
export interface KeyEncoder {
  /** The key bytes, possibly in a reused buffer: valid until the next call. */
  encodeKeyView(row: readonly Value[]): Buffer
  /** The key bytes in a buffer owned by the caller. */
  encodeKey(row: readonly Value[]): Buffer
}

/** Decodes key bytes back into the key values, in key order. */
export interface KeyDecoder {
  decodeKey(bytes: Uint8Array): Row
}

/** What the selection needs to know of a table (`TableInfo` has all of it). */
export interface KeyedTable {
  readonly rowType: RowType
  readonly physicalPrimaryKeys: readonly string[]
  readonly bucketKeys: readonly string[]
  /** The bucket key is the physical primary key (or absent, for log tables). */
  readonly isDefaultBucketKey: boolean
  readonly tableConfig: Configuration
}

/** The encoders of one kind of key row of a table, and its bucketing. */
export interface TableKeyEncoders {
  /** Encodes the KV key (the primary key, or the bucket key of a prefix lookup). */
  readonly key: KeyEncoder
  /** Encodes the bucket key; the same object as `key` when the bytes are the same. */
  readonly bucketKey: KeyEncoder
  /** Maps the encoded bucket key to a bucket. */
  readonly bucketing: BucketingFunction
}

/** `table.datalake.format` of a table, null when unset. */
export function lakeFormatOf(tableConfig: Configuration): DataLakeFormat | null {
  return tableConfig.getOptional(TABLE_DATALAKE_FORMAT) ?? null
}

/** `table.kv.format-version` of a table; tables without it are version 1. */
export function kvFormatVersionOf(tableConfig: Configuration): number {
  return tableConfig.getOptional(TABLE_KV_FORMAT_VERSION) ?? 1
}

/** The lake's key encoder (Fluss's `KeyEncoder.of`): by lake format, Fluss's own when there is none. */
export function keyEncoderOf(
  rowType: RowType,
  keyNames: readonly string[],
  lakeFormat: DataLakeFormat | null,
): KeyEncoder {
  switch (lakeFormat) {
    case null:
    case 'lance':
      return CompactedKeyEncoder.of(rowType, keyNames)
    case 'iceberg':
      return IcebergKeyEncoder.of(rowType, keyNames)
    default:
      throw unsupportedLakeKeys(lakeFormat)
  }
}

/** The encoder of bucket keys (Fluss's `KeyEncoder.ofBucketKeyEncoder`). */
export function bucketKeyEncoderOf(
  rowType: RowType,
  keyNames: readonly string[],
  lakeFormat: DataLakeFormat | null,
): KeyEncoder {
  return keyEncoderOf(rowType, keyNames, lakeFormat)
}

/** True when a table's primary keys use the lake's encoder rather than CompactedKeyEncoder. */
function primaryKeysUseLakeEncoder(tableConfig: Configuration, isDefaultBucketKey: boolean): boolean {
  const version = kvFormatVersionOf(tableConfig)
  if (version === 1) return true
  if (version === 2) return isDefaultBucketKey
  throw new FlussError('INVALID_CONFIG_EXCEPTION', `Unsupported kv format version: ${version}`)
}

/** The encoder of primary keys (Fluss's `KeyEncoder.ofPrimaryKeyEncoder`). */
export function primaryKeyEncoderOf(
  rowType: RowType,
  keyNames: readonly string[],
  tableConfig: Configuration,
  isDefaultBucketKey: boolean,
): KeyEncoder {
  return primaryKeysUseLakeEncoder(tableConfig, isDefaultBucketKey)
    ? keyEncoderOf(rowType, keyNames, lakeFormatOf(tableConfig))
    : CompactedKeyEncoder.of(rowType, keyNames)
}

/** The decoder of primary keys (Fluss's `KeyDecoder.ofPrimaryKeyDecoder`). */
export function primaryKeyDecoderOf(
  rowType: RowType,
  keyNames: readonly string[],
  tableConfig: Configuration,
  isDefaultBucketKey: boolean,
): KeyDecoder {
  if (!primaryKeysUseLakeEncoder(tableConfig, isDefaultBucketKey)) {
    return CompactedKeyDecoder.of(rowType, keyNames)
  }
  const lakeFormat = lakeFormatOf(tableConfig)
  switch (lakeFormat) {
    case null:
    case 'lance':
      return CompactedKeyDecoder.of(rowType, keyNames)
    case 'iceberg':
      return IcebergKeyDecoder.of(rowType, keyNames)
    default:
      throw unsupportedLakeKeys(lakeFormat)
  }
}

/**
 * The key encoders of a table for key rows of `rowType` (default: the table's rows): `keyNames`
 * are the KV key columns (default: the physical primary key; a prefix lookup passes the bucket
 * key). Throws INVALID_CONFIG_EXCEPTION when the table's keys cannot be encoded (a Paimon table, an
 * Iceberg key of several columns or of a type Iceberg cannot bucket).
 */
export function keyEncoderFor(
  table: KeyedTable,
  rowType: RowType = table.rowType,
  keyNames: readonly string[] = table.physicalPrimaryKeys,
): TableKeyEncoders {
  const lakeFormat = lakeFormatOf(table.tableConfig)
  const key = primaryKeyEncoderOf(rowType, keyNames, table.tableConfig, table.isDefaultBucketKey)
  const sameColumns =
    keyNames.length === table.bucketKeys.length && keyNames.every((k, i) => k === table.bucketKeys[i])
  const keyIsLakeEncoded = primaryKeysUseLakeEncoder(table.tableConfig, table.isDefaultBucketKey)
  const sameBytes = sameColumns && (keyIsLakeEncoded || lakeFormat === null || lakeFormat === 'lance')
  const bucketKey = sameBytes ? key : bucketKeyEncoderOf(rowType, table.bucketKeys, lakeFormat)
  return { key, bucketKey, bucketing: bucketingFunction(lakeFormat) }
}

function unsupportedLakeKeys(lakeFormat: string): FlussError {
  return new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `Tables with 'table.datalake.format' = ${lakeFormat} encode keys with the ${lakeFormat} key encoder, which Sluice does not implement`,
  )
}
