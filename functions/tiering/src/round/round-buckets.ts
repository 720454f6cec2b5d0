import { type TableBucket, type TableInfo, tableBucket } from '@sluice/core/metadata'
import { MANIFEST_INLINE_BYTES_DEFAULT, RemoteLogManifestStore } from '@sluice/core/remotelog'
import type { DataFile, FlussBucketOffset } from '@sluice/lake/iceberg'
import type { IcebergTable } from '../iceberg/table.js'
import type { LakeTableState } from '../iceberg/table-state.js'
import { type BucketTierer, newBucketTierer } from './bucket-tierer.js'
import type { BucketOffset } from './lake-item.js'
import { withRetries } from './retry.js'
import type { TieringRoundOptions } from './round-options.js'
import type { RoundTotals } from './round-result.js'
import { readTieredBatches, type TieredLogCursor } from './tiered-log.js'
import type { TieringMetadata, TieringPartition } from './tiering-metadata.js'
import type { TieringRoundDeps } from './tiering-round.js'

/**
 * The bucket part of a round: every bucket of the table (of every live partition) from the
 * offset the lake resumes at, read within the round's byte budget (shared fairly: each bucket
 * may use the budget left divided by the buckets left), turned into lake files.
 */

export interface BucketWork {
  readonly partition?: TieringPartition
  readonly ref: TableBucket
  readonly start: number
}

export function offsetKey(o: { partitionId?: number; bucket: number }): string {
  return `${o.partitionId ?? '-'}:${o.bucket}`
}

/** Every bucket of the table (of every live partition), with the offset the lake resumes from. */
export async function bucketWork(
  metadata: TieringMetadata,
  info: TableInfo,
  base: LakeTableState,
): Promise<BucketWork[]> {
  const lake = new Map(base.flussOffsets.map(o => [offsetKey(o), o.offset]))
  const partitions: (TieringPartition | undefined)[] = info.isPartitioned
    ? await metadata.listPartitions(info)
    : [undefined]
  const work: BucketWork[] = []
  for (const partition of partitions) {
    for (let bucket = 0; bucket < info.numBuckets; bucket++) {
      const ref = tableBucket(info.tableId, bucket, partition?.partitionId)
      const start = lake.get(offsetKey({ ...(partition === undefined ? {} : partition), bucket })) ?? 0
      work.push({ ...(partition === undefined ? {} : { partition }), ref, start })
    }
  }
  return work
}

export interface TieredBuckets {
  readonly dataFiles: DataFile[]
  readonly deleteFiles: DataFile[]
  readonly advanced: FlussBucketOffset[]
  readonly remoteEnds: BucketOffset[]
  readonly gaps: { partitionId?: number; bucket: number; from: number; to: number }[]
  readonly totals: RoundTotals
}

export async function tierBuckets(
  deps: TieringRoundDeps,
  info: TableInfo,
  table: IcebergTable,
  work: readonly BucketWork[],
  options: TieringRoundOptions,
): Promise<TieredBuckets> {
  const clock = deps.clock ?? Date.now
  const manifests = new RemoteLogManifestStore(deps.metaStore, deps.blobStore, {
    inlineBytesMax: MANIFEST_INLINE_BYTES_DEFAULT,
    nowMs: clock,
  })
  const out: TieredBuckets = {
    dataFiles: [],
    deleteFiles: [],
    advanced: [],
    remoteEnds: [],
    gaps: [],
    totals: { records: 0, bytes: 0, dataFileCount: 0, deleteFileCount: 0 },
  }
  const tierers: BucketTierer[] = []
  let budget = info.hasPrimaryKey
    ? Math.min(options.maxRoundBytes, options.maxChangelogRoundBytes)
    : options.maxRoundBytes
  try {
    for (const [i, w] of work.entries()) {
      const stored = await withRetries(options.readAttempts, options.retryBackoffMs, () =>
        manifests.load(w.ref),
      )
      const remoteEnd = stored.manifest.remoteLogEndOffset
      const partitionId = w.partition?.partitionId
      out.remoteEnds.push({
        ...(partitionId === undefined ? {} : { partitionId }),
        bucket: w.ref.bucket,
        offset: Math.max(remoteEnd, 0),
      })
      if (remoteEnd <= w.start || budget <= 0) continue
      const share = Math.max(1, Math.floor(budget / (work.length - i)))
      const cursor: TieredLogCursor = { next: w.start, bytes: 0, gaps: [] }
      const tierer = newBucketTierer(table, info, w.ref.bucket, id => deps.metadata.rowTypeOf(info, id))
      tierers.push(tierer)
      for await (const { batch } of readTieredBatches(
        deps.blobStore,
        stored.manifest,
        cursor,
        share,
        options,
      )) {
        await tierer.add(batch)
      }
      const files = await tierer.finish()
      budget -= cursor.bytes
      out.dataFiles.push(...files.dataFiles)
      out.deleteFiles.push(...files.deleteFiles)
      out.totals.records += files.records
      out.totals.bytes += cursor.bytes
      for (const g of cursor.gaps)
        out.gaps.push({ ...(partitionId === undefined ? {} : { partitionId }), bucket: w.ref.bucket, ...g })
      if (cursor.next > w.start) {
        out.advanced.push({
          ...(w.partition === undefined
            ? {}
            : { partitionId: w.partition.partitionId, partitionName: w.partition.partitionName }),
          bucket: w.ref.bucket,
          offset: cursor.next,
        })
      }
    }
  } catch (e) {
    for (const t of tierers) await t.abort().catch(() => undefined)
    throw e
  }
  out.totals.dataFileCount = out.dataFiles.length
  out.totals.deleteFileCount = out.deleteFiles.length
  return out
}
