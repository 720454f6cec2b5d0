import { type BucketingFunction, bucketingFunction } from '@sluice/core/bucketing'
import { TABLE_DATALAKE_FORMAT, TABLE_KV_FORMAT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'

/** `db.table`, as Fluss prints a TablePath in messages. */
export function tableName(info: TableInfo): string {
  return `${info.tablePath.databaseName}.${info.tablePath.tableName}`
}

/**
 * The bucketing function of a table whose keys this client can encode: Fluss's CompactedKeyEncoder
 * for primary and bucket keys, which Fluss uses unless the table is a Paimon or Iceberg lake table
 * (those encode keys with the lake's own encoder, which this client does not implement:
 * INVALID_CONFIG_EXCEPTION). Lance tables use Fluss's encoder and bucketing.
 */
export function keyBucketing(info: TableInfo): BucketingFunction {
  const lakeFormat = info.tableConfig.getOptional(TABLE_DATALAKE_FORMAT)
  if (lakeFormat === 'paimon' || lakeFormat === 'iceberg') {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Keys of ${tableName(info)} use the ${lakeFormat} key encoding, which this client does not implement`,
    )
  }
  return bucketingFunction(lakeFormat ?? null)
}

/** Refuses primary-key tables whose values are not COMPACTED rows (INDEXED is not implemented). */
export function checkCompactedKv(info: TableInfo): void {
  const format = info.tableConfig.get(TABLE_KV_FORMAT)
  if (format !== 'COMPACTED') {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      `Table ${tableName(info)} has kv format ${format}; this client reads and writes COMPACTED values only`,
    )
  }
}

/** The row type of the columns at `positions`, in that order. */
export function projectFields(rowType: RowType, positions: readonly number[]): RowType {
  return { ...rowType, fields: positions.map(i => rowType.fields[i]) }
}
