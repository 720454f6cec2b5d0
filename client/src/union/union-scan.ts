import { FlussError } from '@sluice/core/errors'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import { flussBucketKey } from '@sluice/lake/iceberg'
import { hintedMetadataLocation, type LakeSource, lakeTableLocation } from '@sluice/lake/io'
import type { Connection } from '../connection.js'
import { EARLIEST_OFFSET } from '../scanner/fetch-log-request.js'
import { type LakeSnapshotView, lakeRecords, loadLakeSnapshot } from './lake-snapshot.js'
import { readLogTail } from './log-tail.js'
import { PrimaryKeyMerge, type UnionRecord, unionRecordOf } from './union-merge.js'

/**
 * Union read (Fluss's batch union read): the lake snapshot up to its `fluss-offsets`, then the log
 * after those offsets up to the latest offsets (LIST_OFFSETS latest, taken when the scan is
 * planned). Log tables concatenate the two; primary-key tables merge by key, the log (newer)
 * winning and -D removing the key. A bucket the lake has not tiered yet is read from its log
 * start. Lake data files are read one at a time, so a large lake does not sit in memory; for
 * primary-key tables the log changes after the snapshot are held (at most `maxPendingKeys` keys).
 *
 *   for await (const r of unionScan(connection, path, { lake: blobStoreLakeSource(store, root) }))
 *     console.log(r.row, r.offset, r.source)
 */

export interface UnionScanOptions {
  /** Where the lake's files are read from. */
  readonly lake: LakeSource
  /**
   * The table's current metadata file (from the lake catalog); default: the file named by
   * `metadata/version-hint.text` under the table location. No lake table: the log alone is read.
   */
  readonly metadataLocation?: string
  /** The lake table's location; default `<lake root>/lake/<database>/<table>`. */
  readonly tableLocation?: string
  /** Wait of one log poll (default 1000 ms). */
  readonly pollTimeoutMs?: number
  /** The log part must be read within this time (default 60 s), else REQUEST_TIME_OUT. */
  readonly logReadTimeoutMs?: number
  /** Most keys a primary-key union read holds from the log (default 1,000,000). */
  readonly maxPendingKeys?: number
}

/** Where the log part of one bucket starts (the lake's offset, or the log start) and ends. */
export interface UnionBucketRange {
  readonly partitionId?: number
  readonly partitionName?: string
  readonly bucket: number
  /** The lake's `fluss-offsets` entry, or EARLIEST_OFFSET when the lake has none. */
  readonly startOffset: number
  /** LIST_OFFSETS latest when planned (exclusive). */
  readonly endOffset: number
}

export interface UnionScanPlan {
  readonly tableInfo: TableInfo
  /** The lake snapshot read, or undefined when the table has no lake table yet. */
  readonly lake: LakeSnapshotView | undefined
  readonly buckets: readonly UnionBucketRange[]
}

const DEFAULTS = { pollTimeoutMs: 1000, logReadTimeoutMs: 60_000, maxPendingKeys: 1_000_000 }

/** Fixes what a union read covers: the lake snapshot, and per bucket the log range after it. */
export async function planUnionScan(
  connection: Connection,
  path: TablePath,
  options: UnionScanOptions,
): Promise<UnionScanPlan> {
  const admin = connection.getAdmin()
  const tableInfo = await admin.getTableInfo(path)
  const location = options.tableLocation ?? lakeTableLocation(options.lake, path)
  const metadataLocation = options.metadataLocation ?? (await hintedMetadataLocation(options.lake, location))
  const lake =
    metadataLocation === undefined ? undefined : await loadLakeSnapshot(options.lake, metadataLocation)
  const lakeOffsets = new Map((lake?.flussOffsets ?? []).map(o => [flussBucketKey(o), o.offset]))
  const targets: { partitionId?: number; partitionName?: string }[] = tableInfo.isPartitioned
    ? (await admin.listPartitionInfos(path)).map(p => ({
        partitionId: p.partitionId,
        partitionName: p.partitionName,
      }))
    : [{}]
  const bucketIds = Array.from({ length: tableInfo.numBuckets }, (_, b) => b)
  const buckets: UnionBucketRange[] = []
  for (const t of targets) {
    const ends = await admin.listOffsets(path, bucketIds, 'latest', t.partitionName)
    for (const bucket of bucketIds) {
      const startOffset = lakeOffsets.get(flussBucketKey({ ...t, bucket })) ?? EARLIEST_OFFSET
      buckets.push({ ...t, bucket, startOffset, endOffset: ends.get(bucket) ?? 0 })
    }
  }
  return { tableInfo, lake, buckets }
}

/** Runs a planned union read. */
export async function* executeUnionScan(
  connection: Connection,
  plan: UnionScanPlan,
  options: UnionScanOptions,
): AsyncGenerator<UnionRecord> {
  const o = { ...DEFAULTS, ...definedOnly(options) }
  for (const v of [o.pollTimeoutMs, o.logReadTimeoutMs, o.maxPendingKeys]) {
    if (!Number.isSafeInteger(v) || v <= 0)
      throw new FlussError('INVALID_REQUEST', `invalid union scan bound ${v}`)
  }
  const table = await connection.getTable(plan.tableInfo.tablePath)
  const tail = () => readLogTail(table, plan.buckets, o)
  const lakeRows = () => lakeRecords(options.lake, plan.lake, plan.tableInfo)
  if (!plan.tableInfo.hasPrimaryKey) {
    for await (const rows of lakeRows()) yield* rows
    for await (const changes of tail()) yield* changes.map(unionRecordOf)
    return
  }
  const merge = new PrimaryKeyMerge(plan.tableInfo.schema.primaryKeyIndexes, o.maxPendingKeys)
  for await (const changes of tail()) merge.addChanges(changes)
  for await (const rows of lakeRows()) yield* merge.filterLake(rows)
  yield* merge.logImages()
}

/** Plans and runs a union read of the table at `path`. */
export async function* unionScan(
  connection: Connection,
  path: TablePath,
  options: UnionScanOptions,
): AsyncGenerator<UnionRecord> {
  yield* executeUnionScan(connection, await planUnionScan(connection, path, options), options)
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
