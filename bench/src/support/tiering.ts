import { ArrowBatchWriter, DEFAULT_COMPRESSION, initArrowCodecs, writeArrowStream } from '@sluice/core/arrow'
import { LAKE_ROOT, MemoryBlobStore } from '@sluice/core/blobstore'
import { Catalog, createDatabase, createTable, tableInfoOf } from '@sluice/core/control-plane'
import {
  databaseDescriptor,
  Schema,
  TableDescriptor,
  type TableInfo,
  tableBucket,
} from '@sluice/core/metadata'
import { lakeKey, MemoryMetaStore } from '@sluice/core/metastore'
import { buildLogBatch, LogRecordBatch } from '@sluice/core/record'
import { MANIFEST_INLINE_BYTES_DEFAULT, newRemoteId, RemoteLogManifestStore } from '@sluice/core/remotelog'
import { Timestamp } from '@sluice/core/row'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import { lakeSchemaOf } from '@sluice/lake/iceberg'
import { LakeFileIO } from '@sluice/lake/io'
import { PARQUET_FIELD_ID_KEY } from '@sluice/lake/parquet'
import { LocalCatalog } from '@sluice/tiering/catalog'
import { catalogTieringMetadata, runTieringRound, type TieringRoundDeps } from '@sluice/tiering/round'
import { Compression, Table, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node'

/**
 * Issue #8 benchmark, tiering throughput: rows/s of a whole tiering round of a log table (read the
 * uploaded ZSTD segments from the blob store, validate every batch, pass the Arrow data through
 * with the system columns, parquet-wasm ZSTD, write the data file, commit the Iceberg snapshot,
 * record the offsets) against parquet-wasm writing the same rows (system columns included) from
 * a ready, uncompressed Arrow table. Target: ≥ 0.6× the baseline. Timings belong to bench/.
 */

export interface TieringBenchContext {
  readonly rows: number
  readonly info: TableInfo
  readonly metaStore: MemoryMetaStore
  readonly blobStore: MemoryBlobStore
  /** The same rows in the lake schema as one Arrow IPC stream (the baseline's input). */
  readonly ipc: Uint8Array
  readonly segmentBytes: number
}

export interface TieringBenchRun {
  readonly rowsPerSec: number
  readonly bytes: number
}

const BATCH_ROWS = 2048
const SEGMENT_BATCHES = 64
const COMMIT_TIME_MS = 1_700_000_000_000

/** Creates a lake log table of ~1 KiB rows and uploads `rowCount` rows as tiered segments. */
export async function tieringBenchSetup(rowCount: number): Promise<TieringBenchContext> {
  await initArrowCodecs()
  const metaStore = new MemoryMetaStore()
  const blobStore = new MemoryBlobStore()
  const catalog = new Catalog(metaStore)
  await createDatabase(catalog, 'bench', databaseDescriptor(), true)
  const descriptor = TableDescriptor.builder()
    .schema(Schema.newBuilder().fromRowType(BENCH_ROW_TYPE).build())
    .distributedBy(1)
    .property('table.datalake.enabled', 'true')
    .build()
  const created = await createTable(catalog, {
    tablePath: { databaseName: 'bench', tableName: 'events' },
    descriptor,
    assignment: [[1]],
    coordinatorEpoch: 0,
    ignoreIfExists: false,
  })
  const info = tableInfoOf((created as NonNullable<typeof created>).table)
  const { rows } = benchRows(rowCount)
  const flussBatches: Buffer[] = []
  const lakeBatches: Uint8Array[] = []
  const lakeSchema = lakeSchemaOf(info)
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    const slice = rows.slice(start, start + BATCH_ROWS)
    const writer = new ArrowBatchWriter(info.rowType, { compression: DEFAULT_COMPRESSION })
    const lake = new ArrowBatchWriter(lakeSchema.rowType, { initialCapacityRows: BATCH_ROWS })
    slice.forEach((r, i) => {
      writer.addRow(r)
      lake.addRow([...r, 0, BigInt(start + i), new Timestamp(COMMIT_TIME_MS)])
    })
    const records = writer.finish()
    flussBatches.push(
      buildLogBatch({
        schemaId: info.schemaId,
        appendOnly: true,
        recordCount: slice.length,
        records,
        baseOffset: start,
        commitTimestamp: COMMIT_TIME_MS,
      }),
    )
    lakeBatches.push(lake.finish())
  }
  const segmentBytes = await uploadSegments(metaStore, blobStore, info, flussBatches)
  const ipc = writeArrowStream(lakeSchema.rowType, lakeBatches, {
    fieldMetadata: lakeSchema.columns.map(c => ({ [PARQUET_FIELD_ID_KEY]: String(c.fieldId) })),
    timestampLtzTimezone: 'UTC',
  })
  return { rows: rowCount, info, metaStore, blobStore, ipc, segmentBytes }
}

async function uploadSegments(
  metaStore: MemoryMetaStore,
  blobStore: MemoryBlobStore,
  info: TableInfo,
  batches: readonly Buffer[],
): Promise<number> {
  const ref = tableBucket(info.tableId, 0)
  const store = new RemoteLogManifestStore(metaStore, blobStore, {
    inlineBytesMax: MANIFEST_INLINE_BYTES_DEFAULT,
    nowMs: Date.now,
  })
  let total = 0
  let base = 0
  for (let i = 0; i < batches.length; i += SEGMENT_BATCHES) {
    const part = batches.slice(i, i + SEGMENT_BATCHES)
    const bytes = Buffer.concat(part)
    const end = new LogRecordBatch(part[part.length - 1]).nextOffset
    const stored = await store.load(ref)
    const entry = {
      segmentId: newRemoteId(Date.now()),
      baseOffset: base,
      endOffset: end,
      maxTimestamp: COMMIT_TIME_MS,
      sizeInBytes: bytes.length,
      hasWriterSnapshot: false,
    }
    const manifest = stored.manifest.withAppended([entry])
    await blobStore.put(manifest.keysOf(entry).log, bytes)
    await store.commit(ref, stored, manifest, 0)
    total += bytes.length
    base = end
  }
  return total
}

/** One timed tiering round into a fresh lake; rows/s and the data bytes written. */
export async function runTieringBenchSubject(b: TieringBenchContext): Promise<TieringBenchRun> {
  const lakeStore = new MemoryBlobStore()
  const io = new LakeFileIO(lakeStore, 'memory://lake')
  const lakeMeta = new MemoryMetaStore()
  const { pk, sk } = lakeKey(b.info.tableId)
  const item = await b.metaStore.get(pk, sk)
  if (item !== undefined) await b.metaStore.delete(pk, sk, { version: item.version })
  const deps: TieringRoundDeps = {
    metaStore: b.metaStore,
    blobStore: b.blobStore,
    lakeIo: io,
    lakeCatalog: new LocalCatalog(lakeMeta, io),
    metadata: catalogTieringMetadata(new Catalog(b.metaStore)),
    ownerId: 'bench',
    options: { maxRoundBytes: 64 * 1024 * 1024 * 1024 },
    tableOptions: { targetFileBytes: 1024 * 1024 * 1024 },
  }
  const t0 = performance.now()
  const result = await runTieringRound(deps, b.info)
  const s = (performance.now() - t0) / 1000
  if (result.status !== 'committed' || result.records !== b.rows) {
    throw new Error(
      `bench round did not tier every row: ${JSON.stringify({ ...result, snapshotId: undefined })}`,
    )
  }
  let bytes = 0
  for (const o of (await lakeStore.list(`${LAKE_ROOT}/`)).items)
    if (o.key.endsWith('.parquet')) bytes += o.size
  return { rowsPerSec: b.rows / s, bytes }
}

/** One timed run of the baseline: parquet-wasm (ZSTD) from the prepared Arrow stream. */
export function runTieringBenchBaseline(b: TieringBenchContext): TieringBenchRun {
  const t0 = performance.now()
  const props = new WriterPropertiesBuilder().setCompression(Compression.ZSTD).build()
  const bytes = writeParquet(Table.fromIPCStream(b.ipc), props)
  const s = (performance.now() - t0) / 1000
  return { rowsPerSec: b.rows / s, bytes: bytes.length }
}

export interface TieringBenchResult {
  readonly rows: number
  readonly segmentBytes: number
  readonly subjectRowsPerSec: number
  readonly baselineRowsPerSec: number
  /** subject / baseline (target ≥ 0.6). */
  readonly ratio: number
  readonly subjectFileBytes: number
  readonly baselineFileBytes: number
}

/** Subject and baseline alternately `runs` times on `rowCount` rows; medians. */
export async function benchTieringRound(rowCount: number, runs = 3): Promise<TieringBenchResult> {
  const b = await tieringBenchSetup(rowCount)
  const subject: TieringBenchRun[] = []
  const baseline: TieringBenchRun[] = []
  for (let i = 0; i < runs; i++) {
    subject.push(await runTieringBenchSubject(b))
    baseline.push(runTieringBenchBaseline(b))
  }
  const median = (xs: TieringBenchRun[]) =>
    [...xs].sort((x, y) => x.rowsPerSec - y.rowsPerSec)[Math.floor(xs.length / 2)]
  const s = median(subject)
  const r = median(baseline)
  return {
    rows: rowCount,
    segmentBytes: b.segmentBytes,
    subjectRowsPerSec: s.rowsPerSec,
    baselineRowsPerSec: r.rowsPerSec,
    ratio: s.rowsPerSec / r.rowsPerSec,
    subjectFileBytes: s.bytes,
    baselineFileBytes: r.bytes,
  }
}
