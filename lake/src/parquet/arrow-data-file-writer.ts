import { LakeArrowStreamWriter } from '@sluice/core/arrow'
import { lakeDataFileKey } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { RowType } from '@sluice/core/types'
import { toBoundBytes } from '../iceberg/conversions.js'
import { flussColumnIdOf } from '../iceberg/field-ids.js'
import { uuidV7 } from '../iceberg/ids.js'
import { stringifyJson } from '../iceberg/json.js'
import { partitionPath } from '../iceberg/partition.js'
import { OFFSET_SORT_ORDER_ID } from '../iceberg/table-metadata.js'
import { type DataFile, FileContent, type PartitionValue } from '../iceberg/types.js'
import { encodeParquetStream } from './parquet-file.js'
import type { WriteContext } from './write-context.js'

/** One ARROW log batch to tier as it is (log tables). */
export interface TieredBatch {
  /** The batch's records section: one Arrow RecordBatch message, possibly compressed. */
  readonly arrow: Uint8Array
  /** The Fluss row type of the batch's schema id. */
  readonly rowType: RowType
  readonly baseOffset: number
  readonly commitTimestampMs: number
}

interface FileStats {
  rows: number
  nulls: number[]
  minOffset: number
  maxOffset: number
  minTimestampMs: number
  maxTimestampMs: number
}

/**
 * Writes the log batches of one bucket (of one partition) of a log table as Parquet data files,
 * passing the Arrow data through: each batch's buffers are decompressed and reused, the system
 * columns appended (`LakeArrowStreamWriter`), and the resulting stream handed to parquet-wasm.
 * No value is decoded, so this path costs little more than parquet-wasm itself.
 *
 * Metrics are exact without reading values: value and null counts from the batches' field nodes,
 * bounds for the system columns (bucket, offset range, commit-time range) and for identity
 * partition columns (their value is the partition's); other columns get no bounds.
 * A file is closed once its buffered Arrow stream reaches `targetFileBytes`.
 */
export class ArrowDataFileWriter {
  private readonly stream: LakeArrowStreamWriter
  private readonly written: DataFile[] = []
  private stats: FileStats

  constructor(
    private readonly ctx: WriteContext,
    readonly bucket: number,
    private readonly partition: readonly PartitionValue[],
  ) {
    if (!Number.isSafeInteger(bucket) || bucket < 0)
      throw new FlussError('INVALID_REQUEST', `invalid bucket ${bucket}`)
    if (partition.length !== ctx.partitioning.fields.length)
      throw new FlussError('INVALID_REQUEST', 'the partition tuple does not fit the partition spec')
    const user = ctx.schema.columns.filter(c => c.rowIndex >= 0)
    this.stream = new LakeArrowStreamWriter({
      userRowType: {
        type: 'ROW',
        nullable: false,
        fields: user.map(c => ({ name: c.name, type: c.lakeType, fieldId: c.fieldId })),
      },
      fieldIds: ctx.schema.columns.map(c => c.fieldId),
      sourceColumnIds: user.map(c => flussColumnIdOf(c.fieldId)),
      fieldMetadataTrees: user.map(c => c.nestedFieldIds),
    })
    this.stats = this.newStats()
  }

  private newStats(): FileStats {
    return {
      rows: 0,
      nulls: this.ctx.schema.columns.map(() => 0),
      minOffset: Number.POSITIVE_INFINITY,
      maxOffset: -1,
      minTimestampMs: Number.POSITIVE_INFINITY,
      maxTimestampMs: Number.NEGATIVE_INFINITY,
    }
  }

  get files(): readonly DataFile[] {
    return this.written
  }

  async write(batch: TieredBatch): Promise<void> {
    const summary = this.stream.append(batch.arrow, batch.rowType, {
      bucket: this.bucket,
      baseOffset: batch.baseOffset,
      commitTimestampMs: batch.commitTimestampMs,
    })
    if (summary.recordCount > 0) {
      const s = this.stats
      s.rows += summary.recordCount
      summary.nullCounts.forEach((n, i) => {
        s.nulls[i] += n
      })
      s.minOffset = Math.min(s.minOffset, batch.baseOffset)
      s.maxOffset = Math.max(s.maxOffset, batch.baseOffset + summary.recordCount - 1)
      s.minTimestampMs = Math.min(s.minTimestampMs, batch.commitTimestampMs)
      s.maxTimestampMs = Math.max(s.maxTimestampMs, batch.commitTimestampMs)
    }
    if (this.stream.bufferedBytes >= this.ctx.options.targetFileBytes) await this.flush()
  }

  /** Closes the current file, if it has rows. */
  async flush(): Promise<void> {
    if (this.stats.rows === 0) return
    const { ctx } = this
    const ipc = this.stream.finish()
    const bytes = encodeParquetStream(
      ipc,
      { 'iceberg.schema': stringifyJson(ctx.schema.iceberg) },
      ctx.options.rowGroupRows,
    )
    const location = lakeDataFileKey(
      ctx.location,
      partitionPath(ctx.partitioning, this.partition),
      uuidV7(ctx.clock()),
    )
    await ctx.io.write(location, bytes, true)
    this.written.push({
      content: FileContent.DATA,
      filePath: location,
      fileFormat: 'PARQUET',
      specId: ctx.partitioning.spec['spec-id'],
      partition: [...this.partition],
      recordCount: this.stats.rows,
      fileSizeInBytes: bytes.length,
      ...this.metrics(),
      sortOrderId: OFFSET_SORT_ORDER_ID,
    })
    this.stats = this.newStats()
  }

  private metrics() {
    const { ctx, stats } = this
    const valueCounts = new Map<number, number>()
    const nullValueCounts = new Map<number, number>()
    const lowerBounds = new Map<number, Uint8Array>()
    const upperBounds = new Map<number, Uint8Array>()
    const bound = (id: number, type: string, lower: unknown, upper: unknown) => {
      lowerBounds.set(id, toBoundBytes(type, lower as never))
      upperBounds.set(id, toBoundBytes(type, upper as never))
    }
    ctx.schema.columns.forEach((c, i) => {
      // Iceberg keeps metrics of primitive (leaf) fields only: list, map and struct columns get none.
      if (typeof c.icebergType !== 'string') return
      valueCounts.set(c.fieldId, stats.rows)
      nullValueCounts.set(c.fieldId, stats.nulls[i])
    })
    const [bucket, offset, timestamp] = ctx.schema.columns.filter(c => c.rowIndex < 0)
    bound(bucket.fieldId, 'int', this.bucket, this.bucket)
    bound(offset.fieldId, 'long', BigInt(stats.minOffset), BigInt(stats.maxOffset))
    bound(
      timestamp.fieldId,
      'timestamptz',
      BigInt(stats.minTimestampMs) * 1000n,
      BigInt(stats.maxTimestampMs) * 1000n,
    )
    ctx.partitioning.fields.forEach((f, i) => {
      const v = this.partition[i]
      if (f.rowIndex < 0 || v === null) return
      const column = ctx.schema.columns.find(c => c.rowIndex === f.rowIndex)
      if (column !== undefined && nullValueCounts.get(column.fieldId) === 0)
        bound(column.fieldId, f.icebergType, v, v)
    })
    return { valueCounts, nullValueCounts, lowerBounds, upperBounds }
  }

  async finish(): Promise<DataFile[]> {
    await this.flush()
    return [...this.written]
  }

  /** Deletes the files written so far and drops buffered batches. */
  async abort(): Promise<void> {
    this.stream.reset()
    this.stats = this.newStats()
    await this.ctx.io.delete(this.written.map(f => f.filePath))
    this.written.length = 0
  }
}
