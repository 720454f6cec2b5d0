import { ArrowBatchWriter, writeArrowStream } from '@sluice/core/arrow'
import { MemoryBlobStore } from '@sluice/core/blobstore'
import { Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { Timestamp } from '@sluice/core/row'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import { Compression, Table, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node'
import { LakeFileIO } from '../iceberg/file-io.js'
import { lakeTableOptions } from '../iceberg/options.js'
import { lakePartitioningOf } from '../iceberg/partition.js'
import { lakeSchemaOf } from '../iceberg/schema.js'
import { DataFileWriter } from './data-file-writer.js'
import { PARQUET_FIELD_ID_KEY } from './parquet-file.js'
import type { LakeRecord, WriteContext } from './write-context.js'

/**
 * Issue #8 benchmark, tiering throughput part: rows/s of the lake data-file path (Fluss rows →
 * Arrow columns + metrics → parquet-wasm ZSTD → blob store) against parquet-wasm writing the same
 * rows (system columns included) from a ready Arrow table. Target: ≥ 0.6× the baseline.
 * Timings belong to the bench harness, never to tests.
 */

export interface ParquetWriteBenchContext {
  readonly records: readonly LakeRecord[]
  readonly ctx: WriteContext
  /** The same rows as one Arrow IPC stream, prepared outside the timed part. */
  readonly ipc: Uint8Array
}

export interface ParquetWriteBenchResult {
  readonly rows: number
  readonly subjectRowsPerSec: number
  readonly baselineRowsPerSec: number
  /** subject / baseline. */
  readonly ratio: number
  readonly subjectFileBytes: number
  readonly baselineFileBytes: number
}

const BATCH_ROWS = 16_384

export function parquetWriteBenchSetup(rowCount: number): ParquetWriteBenchContext {
  const schema = Schema.newBuilder().fromRowType(BENCH_ROW_TYPE).build()
  const descriptor = new TableDescriptor({ schema, distribution: { bucketCount: 1, bucketKeys: [] } })
  const info = TableInfo.of(tablePath('bench', 'events'), 1, 0, descriptor, 0, 0)
  const lakeSchema = lakeSchemaOf(info)
  const io = new LakeFileIO(new MemoryBlobStore(), 'memory://bench')
  const ctx: WriteContext = {
    io,
    location: io.tableLocation(info.tablePath),
    schema: lakeSchema,
    partitioning: lakePartitioningOf(info, lakeSchema),
    options: lakeTableOptions({ targetFileBytes: 1024 * 1024 * 1024 }),
    clock: Date.now,
  }
  const records = benchRows(rowCount).rows.map((row, i) => ({
    row,
    offset: i,
    timestampMs: 1_700_000_000_000 + i,
  }))
  const writer = new ArrowBatchWriter(lakeSchema.rowType, { initialCapacityRows: BATCH_ROWS })
  const batches: Uint8Array[] = []
  for (const r of records) {
    writer.addRow([...r.row, 0, BigInt(r.offset), new Timestamp(r.timestampMs)])
    if (writer.recordCount === BATCH_ROWS) {
      batches.push(writer.finish())
      writer.reset()
    }
  }
  if (writer.recordCount > 0) batches.push(writer.finish())
  const ipc = writeArrowStream(lakeSchema.rowType, batches, {
    fieldMetadata: lakeSchema.columns.map(c => ({ [PARQUET_FIELD_ID_KEY]: String(c.fieldId) })),
    timestampLtzTimezone: 'UTC',
  })
  return { records, ctx, ipc }
}

/** One timed run of the lake path; rows/s and the file size. */
export async function runParquetWriteSubject(
  b: ParquetWriteBenchContext,
): Promise<{ rowsPerSec: number; bytes: number }> {
  const t0 = performance.now()
  const writer = new DataFileWriter(b.ctx, 0)
  await writer.write(b.records)
  const files = await writer.finish()
  const s = (performance.now() - t0) / 1000
  await b.ctx.io.delete(files.map(f => f.filePath))
  return { rowsPerSec: b.records.length / s, bytes: files.reduce((n, f) => n + f.fileSizeInBytes, 0) }
}

/** One timed run of the baseline: parquet-wasm from the prepared Arrow stream. */
export function runParquetWriteBaseline(b: ParquetWriteBenchContext): { rowsPerSec: number; bytes: number } {
  const t0 = performance.now()
  const props = new WriterPropertiesBuilder().setCompression(Compression.ZSTD).build()
  const bytes = writeParquet(Table.fromIPCStream(b.ipc), props)
  const s = (performance.now() - t0) / 1000
  return { rowsPerSec: b.records.length / s, bytes: bytes.length }
}

/** Runs subject and baseline alternately `runs` times on `rowCount` rows; medians. */
export async function benchParquetWrite(rowCount: number, runs = 3): Promise<ParquetWriteBenchResult> {
  const b = parquetWriteBenchSetup(rowCount)
  const subject: number[] = []
  const baseline: number[] = []
  let subjectFileBytes = 0
  let baselineFileBytes = 0
  for (let i = 0; i < runs; i++) {
    const s = await runParquetWriteSubject(b)
    const r = runParquetWriteBaseline(b)
    subject.push(s.rowsPerSec)
    baseline.push(r.rowsPerSec)
    subjectFileBytes = s.bytes
    baselineFileBytes = r.bytes
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  const subjectRowsPerSec = median(subject)
  const baselineRowsPerSec = median(baseline)
  return {
    rows: rowCount,
    subjectRowsPerSec,
    baselineRowsPerSec,
    ratio: subjectRowsPerSec / baselineRowsPerSec,
    subjectFileBytes,
    baselineFileBytes,
  }
}
