import type { BucketingFunction } from '@sluice/core/bucketing'
import { TABLE_KV_FORMAT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import {
  bucketKeyEncoderOf,
  type KeyEncoder,
  keyEncoderFor,
  lakeFormatOf,
  type TableKeyEncoders,
} from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'

/** `db.table`, as Fluss prints a TablePath in messages. */
export function tableName(info: TableInfo): string {
  return `${info.tablePath.databaseName}.${info.tablePath.tableName}`
}

/**
 * The bucketing function of a primary-key table, after checking that its keys can be encoded (the
 * selection of `keyEncoderFor`: Fluss's CompactedKeyEncoder, or the Iceberg key encoder and
 * bucketing for Iceberg lake tables). Tables whose keys cannot be encoded (Paimon lake tables, an
 * Iceberg key of several columns or of a type Iceberg cannot bucket) are INVALID_CONFIG_EXCEPTION,
 * with the table named.
 */
export function keyBucketing(info: TableInfo): BucketingFunction {
  return withTableName(info, () => keyEncoderFor(info).bucketing)
}

/** The key encoders of `info` for key rows of `rowType` (see `keyEncoderFor`), the table named in errors. */
export function tableKeyEncoders(
  info: TableInfo,
  rowType: RowType = info.rowType,
  keyNames: readonly string[] = info.physicalPrimaryKeys,
): TableKeyEncoders {
  return withTableName(info, () => keyEncoderFor(info, rowType, keyNames))
}

/** The bucket-key encoder of `info` for full rows (the lake's encoder for lake tables). */
export function bucketKeyEncoder(info: TableInfo): KeyEncoder {
  return withTableName(info, () =>
    bucketKeyEncoderOf(info.rowType, info.bucketKeys, lakeFormatOf(info.tableConfig)),
  )
}

/** Runs `fn`; an INVALID_CONFIG_EXCEPTION it throws gets the table's name in front of its message. */
function withTableName<T>(info: TableInfo, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof FlussError && e.is('INVALID_CONFIG_EXCEPTION')) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Keys of ${tableName(info)} cannot be encoded: ${e.message}`,
      )
    }
    throw e
  }
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
