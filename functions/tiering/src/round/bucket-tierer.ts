import { ArrowBatchReader, projectRecordBatch, projectRowType } from '@sluice/core/arrow'
import { TABLE_CHANGELOG_IMAGE } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { ColumnMapping, type TableInfo } from '@sluice/core/metadata'
import { ChangeType, changeTypeFromByte, type LogRecordBatch } from '@sluice/core/record'
import type { Value } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import type { DataFile, PartitionValue } from '@sluice/lake/iceberg'
import { flussColumnIdOf, partitionTupleOf } from '@sluice/lake/iceberg'
import { ArrowDataFileWriter } from '@sluice/lake/parquet'
import { type ChangeRecord, collapseChangelog } from '../iceberg/changelog.js'
import type { IcebergTable } from '../iceberg/table.js'

/**
 * Turning the tiered batches of one bucket (of one partition) into lake files for one round:
 * - log tables pass every batch's Arrow data through to Parquet (`ArrowDataFileWriter`), every
 *   row with its offset and the batch commit time;
 * - primary-key tables decode the changelog and collapse it per key: the final +I/+U image of a
 *   key as data, a key-only equality delete for keys that may exist in earlier snapshots.
 */
export interface BucketTierer {
  add(batch: LogRecordBatch): Promise<void>
  finish(): Promise<BucketFiles>
  /** Deletes whatever was written. */
  abort(): Promise<void>
}

export interface BucketFiles {
  readonly dataFiles: readonly DataFile[]
  readonly deleteFiles: readonly DataFile[]
  /** Rows read from the log. */
  readonly records: number
}

export type RowTypeOf = (schemaId: number) => Promise<RowType>

export function newBucketTierer(
  table: IcebergTable,
  info: TableInfo,
  bucket: number,
  rowTypeOf: RowTypeOf,
): BucketTierer {
  return info.hasPrimaryKey
    ? new PrimaryKeyBucketTierer(table, info, bucket, rowTypeOf)
    : new LogBucketTierer(table, bucket, rowTypeOf)
}

class LogBucketTierer implements BucketTierer {
  private writer: ArrowDataFileWriter | undefined
  private records = 0

  constructor(
    private readonly table: IcebergTable,
    private readonly bucket: number,
    private readonly rowTypeOf: RowTypeOf,
  ) {}

  async add(batch: LogRecordBatch): Promise<void> {
    if (!batch.appendOnly) {
      throw new FlussError(
        'CORRUPT_RECORD_EXCEPTION',
        `log table batch at offset ${batch.baseOffset} is not append-only`,
      )
    }
    if (batch.recordCount === 0) return
    const rowType = await this.rowTypeOf(batch.schemaId)
    const arrow = batch.arrowPayload()
    this.writer ??= new ArrowDataFileWriter(
      this.table.writeContext(),
      this.bucket,
      this.partitionOf(arrow, rowType),
    )
    await this.writer.write({
      arrow,
      rowType,
      baseOffset: batch.baseOffset,
      commitTimestampMs: batch.commitTimestamp,
    })
    this.records += batch.recordCount
  }

  /** The partition tuple, from the partition columns of the batch's first row. */
  private partitionOf(arrow: Uint8Array, rowType: RowType): PartitionValue[] {
    const { partitioning, schema } = this.table.writeContext()
    const columns = partitioning.fields.filter(f => f.rowIndex >= 0).map(f => f.rowIndex)
    const row: Value[] = new Array(schema.columns.length).fill(null)
    if (columns.length > 0) {
      // The batch's own positions of the partition columns (by column id: its schema may be older).
      const sourceOf = (rowIndex: number) => {
        const lake = schema.columns.find(c => c.rowIndex === rowIndex)
        const id = lake === undefined ? -1 : flussColumnIdOf(lake.fieldId)
        const s = rowType.fields.findIndex(f => f.fieldId === id)
        if (s < 0) throw new FlussError('INVALID_REQUEST', 'a batch lacks a partition column of the table')
        return s
      }
      const pairs = columns.map(c => ({ c, s: sourceOf(c) })).sort((a, b) => a.s - b.s)
      const sorted = pairs.map(p => p.s)
      const projected = projectRecordBatch(arrow, rowType, sorted)
      const values = new ArrowBatchReader(projected, projectRowType(rowType, sorted)).getRow(0)
      pairs.forEach((p, i) => {
        row[p.c] = values[i]
      })
    }
    return partitionTupleOf(partitioning, row, this.bucket)
  }

  async finish(): Promise<BucketFiles> {
    const dataFiles = this.writer === undefined ? [] : await this.writer.finish()
    return { dataFiles, deleteFiles: [], records: this.records }
  }

  async abort(): Promise<void> {
    await this.writer?.abort()
  }
}

class PrimaryKeyBucketTierer implements BucketTierer {
  private readonly changes: ChangeRecord[] = []
  private readonly written: DataFile[] = []
  private readonly mappings = new Map<number, ColumnMapping>()

  constructor(
    private readonly table: IcebergTable,
    private readonly info: TableInfo,
    private readonly bucket: number,
    private readonly rowTypeOf: RowTypeOf,
  ) {}

  async add(batch: LogRecordBatch): Promise<void> {
    const count = batch.recordCount
    if (count === 0) return
    const rowType = await this.rowTypeOf(batch.schemaId)
    const types = batch.changeTypes()
    const reader = new ArrowBatchReader(batch.arrowPayload(), rowType)
    const mapping = this.mappingOf(batch.schemaId, rowType)
    if (reader.recordCount !== count) {
      throw new FlussError(
        'CORRUPT_RECORD_EXCEPTION',
        `batch at offset ${batch.baseOffset} holds ${reader.recordCount} rows, not ${count}`,
      )
    }
    for (let i = 0; i < count; i++) {
      this.changes.push({
        row: mapping.map(reader.getRow(i)),
        offset: batch.baseOffset + i,
        timestampMs: batch.commitTimestamp,
        changeType: types === null ? ChangeType.INSERT : changeTypeFromByte(types[i]),
      })
    }
  }

  /**
   * Rows of the batches of one schema id as rows of the table's schema, by column id: NULL for
   * columns added since, dropped ones left out, widened values converted.
   */
  private mappingOf(schemaId: number, rowType: RowType): ColumnMapping {
    let mapping = this.mappings.get(schemaId)
    if (mapping === undefined) {
      const source = rowType.fields.map(f => ({ name: f.name, type: f.type, columnId: f.fieldId }))
      mapping = ColumnMapping.ofColumns(source, this.info.schema.columns)
      this.mappings.set(schemaId, mapping)
    }
    return mapping
  }

  async finish(): Promise<BucketFiles> {
    const records = this.changes.length
    if (records === 0) return { dataFiles: [], deleteFiles: [], records }
    const full = this.info.tableConfig.get(TABLE_CHANGELOG_IMAGE) !== 'WAL'
    const { upserts, deleteKeys } = collapseChangelog(this.changes, this.info.schema.primaryKeyIndexes, full)
    this.changes.length = 0
    const deleteFiles: DataFile[] = []
    if (deleteKeys.length > 0) {
      const f = await this.table.writeEqualityDeleteFile(this.bucket, deleteKeys)
      this.written.push(f)
      deleteFiles.push(f)
    }
    const writer = this.table.newDataFileWriter(this.bucket)
    try {
      await writer.write(upserts)
      const dataFiles = await writer.finish()
      this.written.push(...dataFiles)
      return { dataFiles, deleteFiles, records }
    } catch (e) {
      await writer.abort()
      throw e
    }
  }

  async abort(): Promise<void> {
    this.changes.length = 0
    await this.table.io.delete(this.written.map(f => f.filePath))
    this.written.length = 0
  }
}
