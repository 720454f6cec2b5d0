import type { BlobStore } from '@sluice/core/blobstore'
import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { FlussBucketOffset, LakeTableOptions } from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'
import type { LakeCatalog } from '../catalog/catalog.js'
import { IcebergTable } from '../iceberg/table.js'
import type { LakeTableState } from '../iceberg/table-state.js'
import type { BucketOffset, LakeItem } from './lake-item.js'
import { bucketWork, offsetKey, tierBuckets } from './round-buckets.js'
import { type TieringRoundOptions, tieringRoundOptions } from './round-options.js'
import { type RoundResult, roundFailure } from './round-result.js'
import { claimTable, type TieringClaim, updateClaimed } from './tiering-claim.js'
import type { TieringMetadata } from './tiering-metadata.js'

/**
 * One tiering round of one table:
 *  1. claim the table: a new tiering epoch in its LAKE item (a concurrent round is fenced);
 *  2. create the lake table if absent and load it; its newest Fluss snapshot's `fluss-offsets` say
 *     where each bucket resumes. Repair comes first: when those offsets are ahead of the item's
 *     (a crash between the lake commit and the offset commit), they are adopted as they are, so
 *     nothing is tiered twice;
 *  3. per bucket (every partition's), read the tiered segments after that offset, within the
 *     round's byte budget, stopping only at batch boundaries of sealed, uploaded segments, and
 *     write data files (and equality deletes for primary-key tables);
 *  4. commit one Iceberg snapshot whose `fluss-offsets` are the new end offsets;
 *  5. record the offsets in the LAKE item, conditioned on the epoch, and release the claim.
 * A failure before step 4 deletes every file the round wrote; the lake is unchanged.
 */

export interface TieringFaults {
  /** Runs after the files are written, before the lake commit. */
  beforeLakeCommit?(): void | Promise<void>
  /** Runs after the lake commit, before the offsets are recorded (a throw is a crash there). */
  afterLakeCommit?(): void | Promise<void>
}

export interface TieringRoundDeps {
  readonly metaStore: MetaStore
  /** Where the tablet servers upload the remote log. */
  readonly blobStore: BlobStore
  readonly lakeIo: LakeFileIO
  readonly lakeCatalog: LakeCatalog
  readonly metadata: TieringMetadata
  /** Names this process in claims (the Lambda request id, a host name). */
  readonly ownerId: string
  readonly clock?: () => number
  readonly options?: Partial<TieringRoundOptions>
  readonly tableOptions?: Partial<LakeTableOptions>
  readonly faults?: TieringFaults
  /** Told of every lake table a pass sees and every round it runs (tiering metrics). */
  readonly observer?: TieringObserver
}

/** What a pass reports as it goes (the process's TieringMetrics). */
export interface TieringObserver {
  observeTable(info: TableInfo, item: LakeItem): void
  round(result: RoundResult): void
}

export async function runTieringRound(deps: TieringRoundDeps, info: TableInfo): Promise<RoundResult> {
  const clock = deps.clock ?? Date.now
  const options = tieringRoundOptions(deps.options)
  let claim: TieringClaim
  try {
    claim = await claimTable(deps.metaStore, info.tableId, deps.ownerId, clock(), options.claimTtlMs)
  } catch (e) {
    return roundFailure(info, toFlussError(e), undefined)
  }
  const started = clock()
  try {
    return await tierClaimed(deps, info, claim, options, started)
  } catch (e) {
    const error = toFlussError(e)
    await updateClaimed(deps.metaStore, claim, item => ({
      ...item,
      claimExpiresAtMs: 0,
      lastRoundEndMs: clock(),
      lastError: `${error.errorName}: ${error.message}`,
      lastErrorTimeMs: clock(),
    })).catch(() => undefined)
    return roundFailure(info, error, claim.epoch)
  }
}

async function tierClaimed(
  deps: TieringRoundDeps,
  info: TableInfo,
  claimed: TieringClaim,
  options: TieringRoundOptions,
  started: number,
): Promise<RoundResult> {
  const clock = deps.clock ?? Date.now
  const table = new IcebergTable(info.tablePath, {
    io: deps.lakeIo,
    catalog: deps.lakeCatalog,
    clock,
    ...(deps.tableOptions === undefined ? {} : { options: deps.tableOptions }),
  })
  const format = info.tableConfig.get(TABLE_LOG_FORMAT)
  if (format !== 'ARROW') {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      `tiering reads ARROW logs; the table's log format is ${format}`,
    )
  }
  const base = await table.createIfAbsent(info)
  const repaired = isAhead(base.flussOffsets, claimed.stored.item.tieredOffsets)
  const work = await bucketWork(deps.metadata, info, base)
  const tiered = await tierBuckets(deps, info, table, work, options)
  let state: LakeTableState = base
  let snapshotId: bigint | undefined
  if (tiered.advanced.length > 0) {
    try {
      await deps.faults?.beforeLakeCommit?.()
    } catch (e) {
      await deps.lakeIo.delete([...tiered.dataFiles, ...tiered.deleteFiles].map(f => f.filePath))
      throw e
    }
    const commit = await table.commitAppend({
      dataFiles: tiered.dataFiles,
      deleteFiles: tiered.deleteFiles,
      summary: { flussOffsets: tiered.advanced },
      base,
    })
    state = commit.state
    snapshotId = commit.snapshotId
    await deps.faults?.afterLakeCommit?.()
  }
  const snapshot = state.flussSnapshot
  const claim = await updateClaimed(deps.metaStore, claimed, item => ({
    ...item,
    claimExpiresAtMs: 0,
    tieredOffsets: state.flussOffsets.map(o => ({ ...o })),
    remoteEndOffsets: tiered.remoteEnds,
    lastSnapshotId: snapshot?.['snapshot-id'] ?? item.lastSnapshotId,
    lastSnapshotTimeMs: snapshot?.['timestamp-ms'] ?? item.lastSnapshotTimeMs,
    lastRoundEndMs: clock(),
    lastRoundRecords: tiered.totals.records,
    lastRoundBytes: tiered.totals.bytes,
    lastError: null,
    lastErrorTimeMs: null,
    repairs: item.repairs + (repaired ? 1 : 0),
  }))
  return {
    tableId: info.tableId,
    tablePath: info.tablePath,
    status: snapshotId === undefined ? 'idle' : 'committed',
    epoch: claim.epoch,
    ...(snapshotId === undefined ? {} : { snapshotId }),
    ...tiered.totals,
    tieredOffsets: claim.stored.item.tieredOffsets,
    repaired,
    gaps: tiered.gaps,
    durationMs: clock() - started,
  }
}

/** Whether the lake records an offset the item does not (yet) have for some bucket. */
function isAhead(lake: readonly FlussBucketOffset[], item: readonly BucketOffset[]): boolean {
  const known = new Map(item.map(o => [offsetKey(o), o.offset]))
  return lake.some(o => o.offset > (known.get(offsetKey(o)) ?? 0))
}
