import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ArrowBatchWriter, DEFAULT_COMPRESSION, initArrowCodecs } from '@sluice/core/arrow'
import { type BlobStore, FsBlobStore } from '@sluice/core/blobstore'
import {
  Catalog,
  createDatabase,
  createPartition,
  createTable,
  tableInfoOf,
} from '@sluice/core/control-plane'
import {
  databaseDescriptor,
  resolvedPartitionSpec,
  Schema,
  type TableBucket,
  TableDescriptor,
  type TableInfo,
  tableBucket,
} from '@sluice/core/metadata'
import { MemoryMetaStore, type MetaStore } from '@sluice/core/metastore'
import { buildLogBatch, ChangeType, LogRecordBatch } from '@sluice/core/record'
import { MANIFEST_INLINE_BYTES_DEFAULT, newRemoteId, RemoteLogManifestStore } from '@sluice/core/remotelog'
import { type Row, Timestamp } from '@sluice/core/row'
import type { DataType } from '@sluice/core/types'
import { keyString } from '@sluice/lake/iceberg'
import { LakeFileIO } from '@sluice/lake/io'
import { LocalCatalog } from '../catalog/local-catalog.js'
import { catalogTieringMetadata, type TieringPartition } from '../round/tiering-metadata.js'
import type { TieringRoundDeps } from '../round/tiering-round.js'

/**
 * Test fixtures of tiering: a catalog (MemoryMetaStore) with lake-enabled tables, and bucket logs
 * whose sealed segments are uploaded to a filesystem BlobStore with their manifests committed,
 * exactly as tablet servers do (ZSTD Arrow batches, Fluss's remote layout). Every record appended
 * is remembered, so tests can compute what the lake must hold at any offsets.
 */

export interface TestTableSpec {
  readonly columns: readonly (readonly [string, DataType])[]
  readonly primaryKey?: readonly string[]
  readonly partitionKeys?: readonly string[]
  readonly buckets?: number
  readonly properties?: Readonly<Record<string, string>>
}

export interface LoggedRecord {
  readonly offset: number
  readonly timestampMs: number
  readonly changeType: ChangeType
  readonly row: Row
}

/** The log of one bucket: appended batches, of which `seal()` uploads the pending ones as a segment. */
export class TestBucketLog {
  readonly records: LoggedRecord[] = []
  endOffset = 0
  /** Exclusive end of what is uploaded (the tiered segments). */
  tieredEnd = 0
  private pending: Buffer[] = []

  constructor(
    private readonly env: { metaStore: MetaStore; blobStore: BlobStore; clock: () => number },
    readonly info: TableInfo,
    readonly ref: TableBucket,
  ) {}

  /** Appends one batch (+A for log tables, the given change types for primary-key tables). */
  append(rows: readonly Row[], changeTypes?: readonly ChangeType[], timestampMs = this.env.clock()): void {
    this.appendAs(this.info, rows, changeTypes, timestampMs)
  }

  /** Appends one batch written under the schema of `info` (a writer of that schema version). */
  appendAs(
    info: TableInfo,
    rows: readonly Row[],
    changeTypes?: readonly ChangeType[],
    timestampMs = this.env.clock(),
  ): void {
    const writer = new ArrowBatchWriter(info.rowType, { compression: DEFAULT_COMPRESSION })
    for (const r of rows) writer.addRow(r)
    const appendOnly = !this.info.hasPrimaryKey
    const types = appendOnly ? undefined : (changeTypes ?? rows.map(() => ChangeType.INSERT))
    const batch = buildLogBatch({
      schemaId: info.schemaId,
      appendOnly,
      ...(types === undefined ? {} : { changeTypes: types }),
      recordCount: rows.length,
      records: rows.length === 0 ? new Uint8Array(0) : writer.finish(),
      baseOffset: this.endOffset,
      commitTimestamp: timestampMs,
    })
    rows.forEach((row, i) => {
      this.records.push({
        offset: this.endOffset + i,
        timestampMs,
        changeType: types?.[i] ?? ChangeType.APPEND_ONLY,
        row,
      })
    })
    this.endOffset += Math.max(rows.length, 1)
    this.pending.push(batch)
  }

  /** Uploads the pending batches as one segment and commits it to the bucket's manifest. */
  async seal(): Promise<void> {
    if (this.pending.length === 0) return
    await uploadSegment(this.env, this.ref, this.pending)
    this.pending = []
    this.tieredEnd = this.endOffset
  }
}

/**
 * What a tablet server's remote-log upload does with sealed batches: one segment object under the
 * bucket's tablet prefix, then the manifest commit that makes it visible.
 */
export async function uploadSegment(
  env: { metaStore: MetaStore; blobStore: BlobStore; clock: () => number },
  ref: TableBucket,
  batches: readonly Buffer[],
): Promise<void> {
  if (batches.length === 0) return
  const bytes = Buffer.concat(batches)
  const first = new LogRecordBatch(batches[0])
  const last = new LogRecordBatch(batches[batches.length - 1])
  const store = new RemoteLogManifestStore(env.metaStore, env.blobStore, {
    inlineBytesMax: MANIFEST_INLINE_BYTES_DEFAULT,
    nowMs: env.clock,
  })
  const stored = await store.load(ref)
  const entry = {
    segmentId: newRemoteId(env.clock()),
    baseOffset: first.baseOffset,
    endOffset: last.nextOffset,
    maxTimestamp: last.commitTimestamp,
    sizeInBytes: bytes.length,
    hasWriterSnapshot: false,
  }
  const manifest = stored.manifest.withAppended([entry])
  await env.blobStore.put(manifest.keysOf(entry).log, bytes)
  await store.commit(ref, stored, manifest, 0)
}

export interface TieringTestEnv {
  readonly dir: string
  readonly metaStore: MemoryMetaStore
  readonly blobStore: FsBlobStore
  readonly catalog: Catalog
  readonly io: LakeFileIO
  readonly lakeCatalog: LocalCatalog
  readonly clock: () => number
  deps(overrides?: Partial<TieringRoundDeps>): TieringRoundDeps
  createTable(name: string, spec: TestTableSpec): Promise<TableInfo>
  createPartition(info: TableInfo, value: string): Promise<TieringPartition>
  log(info: TableInfo, bucket: number, partitionId?: number): TestBucketLog
  close(): Promise<void>
}

export async function tieringTestEnv(): Promise<TieringTestEnv> {
  await initArrowCodecs()
  const dir = await mkdtemp(join(tmpdir(), 'sluice-tiering-'))
  const blobStore = new FsBlobStore(dir)
  const metaStore = new MemoryMetaStore()
  const clock = Date.now
  const catalog = new Catalog(metaStore)
  const io = new LakeFileIO(blobStore, pathToFileURL(dir).href)
  const lakeCatalog = new LocalCatalog(metaStore, io, clock)
  await createDatabase(catalog, 'fluss', databaseDescriptor(), true)
  const logs = new Map<string, TestBucketLog>()
  const env: TieringTestEnv = {
    dir,
    metaStore,
    blobStore,
    catalog,
    io,
    lakeCatalog,
    clock,
    deps: overrides => ({
      metaStore,
      blobStore,
      lakeIo: io,
      lakeCatalog,
      metadata: catalogTieringMetadata(catalog),
      ownerId: 'test-round',
      clock,
      ...overrides,
    }),
    createTable: async (name, spec) => {
      let schema = Schema.newBuilder()
      for (const [column, type] of spec.columns) schema = schema.column(column, type)
      if (spec.primaryKey !== undefined) schema = schema.primaryKey([...spec.primaryKey])
      let builder = TableDescriptor.builder()
        .schema(schema.build())
        .distributedBy(spec.buckets ?? 2)
        .partitionedBy([...(spec.partitionKeys ?? [])])
        .property('table.datalake.enabled', 'true')
      for (const [k, v] of Object.entries(spec.properties ?? {})) builder = builder.property(k, v)
      const buckets = spec.buckets ?? 2
      const created = await createTable(catalog, {
        tablePath: { databaseName: 'fluss', tableName: name },
        descriptor: builder.build(),
        ...(spec.partitionKeys === undefined
          ? { assignment: Array.from({ length: buckets }, () => [1]) }
          : {}),
        coordinatorEpoch: 0,
        ignoreIfExists: false,
      })
      return tableInfoOf((created as NonNullable<typeof created>).table)
    },
    createPartition: async (info, value) => {
      const table = await catalog.getTableOrThrow(info.tablePath)
      const created = await createPartition(catalog, {
        table,
        spec: resolvedPartitionSpec([...info.partitionKeys], [value]),
        assignment: Array.from({ length: info.numBuckets }, () => [1]),
        coordinatorEpoch: 0,
        ignoreIfExists: false,
        maxPartitionNum: 100,
        maxBucketNum: 1000,
      })
      const p = (created as NonNullable<typeof created>).partition
      return { partitionId: p.partitionId, partitionName: p.partitionName }
    },
    log: (info, bucket, partitionId) => {
      const ref = tableBucket(info.tableId, bucket, partitionId)
      const key = `${info.tableId}:${partitionId ?? '-'}:${bucket}`
      let log = logs.get(key)
      if (log === undefined) {
        log = new TestBucketLog({ metaStore, blobStore, clock }, info, ref)
        logs.set(key, log)
      }
      return log
    },
    close: async () => {
      await blobStore.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return env
}

/** The rows a log table's lake must hold: every record below the bucket's offset, system columns appended. */
export function expectedLogRows(
  logs: readonly TestBucketLog[],
  offsets: (log: TestBucketLog) => number,
): Row[] {
  return logs.flatMap(log =>
    log.records
      .filter(r => r.offset < offsets(log))
      .map(r => [...r.row, log.ref.bucket, BigInt(r.offset), new Timestamp(r.timestampMs, 0)]),
  )
}

/** The live rows of a primary-key table after replaying each bucket's changelog below its offset. */
export function expectedPkRows(
  logs: readonly TestBucketLog[],
  primaryKeyIndexes: readonly number[],
  offsets: (log: TestBucketLog) => number,
): Row[] {
  const out: Row[] = []
  for (const log of logs) {
    const live = new Map<string, Row>()
    for (const r of log.records) {
      if (r.offset >= offsets(log)) break
      const key = keyString(primaryKeyIndexes.map(i => r.row[i]))
      if (r.changeType === ChangeType.DELETE) live.delete(key)
      else if (r.changeType !== ChangeType.UPDATE_BEFORE) {
        live.set(key, [...r.row, log.ref.bucket, BigInt(r.offset), new Timestamp(r.timestampMs, 0)])
      }
    }
    out.push(...live.values())
  }
  return out
}

/** Rows in a canonical order for comparisons (by bucket, then offset: the last three columns). */
export function byBucketAndOffset(rows: readonly Row[]): Row[] {
  const at = (r: Row, back: number) => r[r.length - back]
  return [...rows].sort((a, b) => {
    const bucket = Number(at(a, 3)) - Number(at(b, 3))
    if (bucket !== 0) return bucket
    const x = at(a, 2) as bigint
    const y = at(b, 2) as bigint
    return x < y ? -1 : x > y ? 1 : 0
  })
}
