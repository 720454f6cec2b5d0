import { ArrowBatchWriter } from '@sluice/core/arrow'
import { lakeDataFileKey } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { Timestamp, type Value } from '@sluice/core/row'
import { uuidV7 } from '../iceberg/ids.js'
import { stringifyJson } from '../iceberg/json.js'
import { partitionPath, partitionTupleOf } from '../iceberg/partition.js'
import { OFFSET_SORT_ORDER_ID } from '../iceberg/table-metadata.js'
import { type DataFile, FileContent, type PartitionValue } from '../iceberg/types.js'
import { samePartition } from '../iceberg/values.js'
import { ColumnStats, fileMetrics } from './column-stats.js'
import { encodeParquet } from './parquet-file.js'
import type { LakeRecord, WriteContext } from './write-context.js'

/** The buffered size is checked every this many rows + 1 (a power of two minus one). */
const SIZE_CHECK_MASK = 255
const INITIAL_CAPACITY_ROWS_MAX = 4096

/**
 * Writes the rows of one Fluss bucket (of one partition) as Parquet data files: each row plus
 * `__bucket`, `__offset`, `__timestamp`, encoded straight into Arrow column buffers, then handed
 * to parquet-wasm. A file is closed when its buffered Arrow data reaches `targetFileBytes`, so
 * memory stays bounded however many rows a round tiers. Metrics are computed from the written
 * values; `record_count` and `file_size_in_bytes` are exact.
 *
 * Usage: `await writer.write(records)` any number of times, then `finish()` for the DataFiles (or
 * `abort()` to delete what was written).
 */
export class DataFileWriter {
  private readonly batchWriter: ArrowBatchWriter
  private readonly lakeRow: Value[]
  private readonly userColumns: number
  private batches: Uint8Array[] = []
  private batchBytes = 0
  private stats: ColumnStats[]
  private rows = 0
  private sorted = true
  private lastOffset = -1n
  private partition: PartitionValue[] | undefined
  private pendingPartition: PartitionValue[] | undefined
  private readonly partitionColumns: readonly number[]
  private readonly written: DataFile[] = []

  constructor(
    private readonly ctx: WriteContext,
    readonly bucket: number,
  ) {
    if (!Number.isSafeInteger(bucket) || bucket < 0)
      throw new FlussError('INVALID_REQUEST', `invalid bucket ${bucket}`)
    this.batchWriter = new ArrowBatchWriter(ctx.schema.rowType, {
      initialCapacityRows: Math.min(ctx.options.arrowBatchRows, INITIAL_CAPACITY_ROWS_MAX),
    })
    this.partitionColumns = ctx.partitioning.fields.filter(f => f.rowIndex >= 0).map(f => f.rowIndex)
    this.userColumns = ctx.schema.columns.filter(c => c.rowIndex >= 0).length
    this.lakeRow = new Array<Value>(ctx.schema.columns.length).fill(null)
    this.stats = this.newStats()
  }

  private newStats(): ColumnStats[] {
    return this.ctx.schema.columns.map(c => new ColumnStats(c))
  }

  /** Files written so far (closed ones only). */
  get files(): readonly DataFile[] {
    return this.written
  }

  async write(records: Iterable<LakeRecord>): Promise<void> {
    const { arrowBatchRows, targetFileBytes } = this.ctx.options
    for (const r of records) {
      this.add(r)
      const rows = this.batchWriter.recordCount
      const sealed = rows >= arrowBatchRows
      if (sealed) this.sealBatch()
      if ((sealed || (rows & SIZE_CHECK_MASK) === 0) && this.bufferedBytes() >= targetFileBytes)
        await this.flush()
    }
    if (this.bufferedBytes() >= targetFileBytes) await this.flush()
  }

  private add(r: LakeRecord): void {
    const row = r.row
    if (row.length !== this.userColumns) {
      throw new FlussError(
        'INVALID_REQUEST',
        `row has ${row.length} values, the table has ${this.userColumns} columns`,
      )
    }
    const partition = this.partition
    if (partition === undefined || this.partitionColumns.length > 0) {
      const tuple = partitionTupleOf(this.ctx.partitioning, row, this.bucket)
      if (partition !== undefined && !samePartition(partition, tuple)) {
        throw new FlussError(
          'INVALID_REQUEST',
          `a row of partition ${JSON.stringify(tuple.map(String))} was given to the writer of another partition`,
        )
      }
      this.pendingPartition = tuple
    }
    const offset = BigInt(r.offset)
    if (offset < 0n) throw new FlussError('INVALID_REQUEST', `negative log offset ${offset}`)
    const lake = this.lakeRow
    for (let i = 0; i < row.length; i++) lake[i] = row[i]
    lake[row.length] = this.bucket
    lake[row.length + 1] = offset
    lake[row.length + 2] = new Timestamp(r.timestampMs, 0)
    this.batchWriter.addRow(lake)
    this.partition ??= this.pendingPartition
    for (let i = 0; i < lake.length; i++) this.stats[i].add(lake[i])
    if (offset < this.lastOffset) this.sorted = false
    this.lastOffset = offset
    this.rows++
  }

  private bufferedBytes(): number {
    return this.batchBytes + this.batchWriter.uncompressedSizeInBytes()
  }

  private sealBatch(): void {
    if (this.batchWriter.recordCount === 0) return
    const batch = this.batchWriter.finish()
    this.batches.push(batch)
    this.batchBytes += batch.length
    this.batchWriter.reset()
  }

  /** Closes the current file, if it has rows. */
  async flush(): Promise<void> {
    this.sealBatch()
    if (this.rows === 0 || this.partition === undefined) return
    const { ctx } = this
    const location = lakeDataFileKey(
      ctx.location,
      partitionPath(ctx.partitioning, this.partition),
      uuidV7(ctx.clock()),
    )
    const bytes = encodeParquet({
      rowType: ctx.schema.rowType,
      batches: this.batches,
      fieldIds: ctx.schema.columns.map(c => c.fieldId),
      fieldMetadataTrees: ctx.schema.columns.map(c => c.nestedFieldIds),
      keyValueMetadata: { 'iceberg.schema': stringifyJson(ctx.schema.iceberg) },
      rowGroupRows: ctx.options.rowGroupRows,
    })
    await ctx.io.write(location, bytes, true)
    this.written.push({
      content: FileContent.DATA,
      filePath: location,
      fileFormat: 'PARQUET',
      specId: ctx.partitioning.spec['spec-id'],
      partition: this.partition,
      recordCount: this.rows,
      fileSizeInBytes: bytes.length,
      ...fileMetrics(this.stats),
      sortOrderId: this.sorted ? OFFSET_SORT_ORDER_ID : 0,
    })
    this.batches = []
    this.batchBytes = 0
    this.rows = 0
    this.sorted = true
    this.lastOffset = -1n
    this.stats = this.newStats()
  }

  /** Closes the last file and returns every file written. */
  async finish(): Promise<DataFile[]> {
    await this.flush()
    return [...this.written]
  }

  /** Deletes the files written so far and drops buffered rows. */
  async abort(): Promise<void> {
    this.batchWriter.reset()
    this.batches = []
    this.batchBytes = 0
    this.rows = 0
    this.stats = this.newStats()
    await this.ctx.io.delete(this.written.map(f => f.filePath))
    this.written.length = 0
  }
}
