import { ArrowBatchWriter } from '@sluice/core/arrow'
import { lakeDeleteFileKey } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import { uuidV7 } from '../iceberg/ids.js'
import { stringifyJson } from '../iceberg/json.js'
import { partitionPath } from '../iceberg/partition.js'
import type { LakeColumn } from '../iceberg/schema.js'
import { type DataFile, FileContent, type PartitionValue } from '../iceberg/types.js'
import { samePartition } from '../iceberg/values.js'
import { ColumnStats, fileMetrics } from './column-stats.js'
import { encodeParquet } from './parquet-file.js'
import type { WriteContext } from './write-context.js'

/**
 * Equality delete files of primary-key tables: Parquet files holding only the primary-key columns
 * (with their table field ids), `content = 2` and `equality_ids` = the primary-key field ids. A
 * delete removes every row with the same key in the same partition whose data sequence number is
 * lower, i.e. rows of earlier commits; rows added in the same commit survive.
 *
 * Key-only files are what every merge-on-read reader applies correctly (icebird matches on every
 * column a delete row carries, so full-row deletes would not match updated rows).
 */

/** The primary-key columns, in primary-key order. */
function keyColumns(ctx: WriteContext): LakeColumn[] {
  const { schema } = ctx
  if (schema.primaryKeyIndexes.length === 0) {
    throw new FlussError('INVALID_TABLE_EXCEPTION', 'equality deletes need a primary-key table')
  }
  return schema.primaryKeyIndexes.map(i => schema.columns.find(c => c.rowIndex === i) as LakeColumn)
}

/** The partition tuple of a key: partition columns are part of the primary key. */
function keyPartition(ctx: WriteContext, key: Row, bucket: number): PartitionValue[] {
  return ctx.partitioning.fields.map(f => {
    if (f.rowIndex < 0) return bucket
    const at = ctx.schema.primaryKeyIndexes.indexOf(f.rowIndex)
    if (at < 0)
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `partition key ${f.field.name} is not part of the primary key`,
      )
    const v = key[at]
    return f.icebergType === 'long' && v !== null ? BigInt(v as bigint | number) : (v as PartitionValue)
  })
}

/**
 * Writes one equality delete file for `keys` of bucket `bucket` (each key: the primary-key values
 * in primary-key order). INVALID_REQUEST for an empty key list, a key with a null or a key of
 * another partition.
 */
export async function writeEqualityDeleteFile(
  ctx: WriteContext,
  bucket: number,
  keys: readonly Row[],
): Promise<DataFile> {
  if (keys.length === 0)
    throw new FlussError('INVALID_REQUEST', 'an equality delete file needs at least one key')
  const columns = keyColumns(ctx)
  const rowType: RowType = {
    type: 'ROW',
    nullable: false,
    fields: columns.map(c => ({ name: c.name, type: c.lakeType, fieldId: c.fieldId })),
  }
  const writer = new ArrowBatchWriter(rowType, { initialCapacityRows: keys.length })
  const stats = columns.map(c => new ColumnStats(c))
  const partition = keyPartition(ctx, keys[0], bucket)
  for (const key of keys) {
    if (key.length !== columns.length || key.some(v => v === null)) {
      throw new FlussError(
        'INVALID_REQUEST',
        `a delete key needs ${columns.length} non-null primary-key values`,
      )
    }
    if (!samePartition(partition, keyPartition(ctx, key, bucket))) {
      throw new FlussError('INVALID_REQUEST', 'keys of one equality delete file must share one partition')
    }
    writer.addRow(key)
    for (let i = 0; i < key.length; i++) stats[i].add(key[i])
  }
  const fieldIds = columns.map(c => c.fieldId)
  const deleteSchema = {
    ...ctx.schema.iceberg,
    fields: ctx.schema.iceberg.fields.filter(f => fieldIds.includes(f.id)),
  }
  const bytes = encodeParquet({
    rowType,
    batches: [writer.finish()],
    fieldIds,
    keyValueMetadata: {
      'iceberg.schema': stringifyJson(deleteSchema),
      'delete-type': 'equality',
      'delete-field-ids': fieldIds.join(','),
    },
    rowGroupRows: ctx.options.rowGroupRows,
  })
  const location = lakeDeleteFileKey(
    ctx.location,
    partitionPath(ctx.partitioning, partition),
    uuidV7(ctx.clock()),
  )
  await ctx.io.write(location, bytes, true)
  return {
    content: FileContent.EQUALITY_DELETES,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: ctx.partitioning.spec['spec-id'],
    partition,
    recordCount: keys.length,
    fileSizeInBytes: bytes.length,
    ...fileMetrics(stats),
    equalityIds: fieldIds,
  }
}
