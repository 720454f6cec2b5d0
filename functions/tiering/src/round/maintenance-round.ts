import { toFlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { expireSnapshots } from '../iceberg/maintenance/expire-snapshots.js'
import { deleteOrphanFiles } from '../iceberg/maintenance/orphan-files.js'
import { IcebergTable } from '../iceberg/table.js'
import { tieringRoundOptions } from './round-options.js'
import { claimTable, updateClaimed } from './tiering-claim.js'
import type { TieringRoundDeps } from './tiering-round.js'

/**
 * Lake maintenance of one table, under its tiering claim: expire snapshots older than the
 * retention (keeping the newest `retainLastSnapshots`, and always the newest Fluss snapshot),
 * then delete orphan files older than the safety window (files of commits that failed or were
 * cut short). Manifest merging happens in every commit. The claim keeps a tiering round from
 * running at the same time; both commit through the catalog's compare-and-swap anyway.
 */

export interface MaintenanceOptions {
  /** Snapshots older than this may expire. */
  readonly snapshotRetentionMs: number
  readonly retainLastSnapshots: number
  /** Unreferenced files younger than this are kept (commits in flight write them first). */
  readonly orphanRetentionMs: number
  /** Bound on objects listed by one orphan cleanup. */
  readonly maxListedFiles: number
  /** Least time between two maintenance runs of a table. */
  readonly intervalMs: number
}

export const DEFAULT_MAINTENANCE_OPTIONS: MaintenanceOptions = {
  snapshotRetentionMs: 3_600_000,
  retainLastSnapshots: 10,
  orphanRetentionMs: 3 * 3_600_000,
  maxListedFiles: 100_000,
  intervalMs: 3_600_000,
}

export interface MaintenanceResult {
  readonly tableId: number
  readonly status: 'done' | 'skipped' | 'fenced' | 'failed'
  readonly expiredSnapshots?: number
  readonly deletedFiles?: number
  readonly error?: string
}

export async function runMaintenance(
  deps: TieringRoundDeps,
  info: TableInfo,
  options: MaintenanceOptions = DEFAULT_MAINTENANCE_OPTIONS,
): Promise<MaintenanceResult> {
  const clock = deps.clock ?? Date.now
  const { claimTtlMs } = tieringRoundOptions(deps.options)
  let claim: Awaited<ReturnType<typeof claimTable>>
  try {
    claim = await claimTable(deps.metaStore, info.tableId, `${deps.ownerId}/maintenance`, clock(), claimTtlMs)
  } catch (e) {
    return { tableId: info.tableId, status: 'fenced', error: toFlussError(e).message }
  }
  const release = (lastMaintenanceMs: number | null) =>
    updateClaimed(deps.metaStore, claim, item => ({
      ...item,
      claimExpiresAtMs: 0,
      lastMaintenanceMs: lastMaintenanceMs ?? item.lastMaintenanceMs,
    }))
  try {
    const table = new IcebergTable(info.tablePath, { io: deps.lakeIo, catalog: deps.lakeCatalog, clock })
    if ((await deps.lakeCatalog.loadTable(info.tablePath)) === undefined) {
      await release(null)
      return { tableId: info.tableId, status: 'skipped' }
    }
    const now = clock()
    const expired = await expireSnapshots(table, {
      olderThanMs: now - options.snapshotRetentionMs,
      retainLast: options.retainLastSnapshots,
    })
    const orphans = await deleteOrphanFiles(table, {
      olderThanMs: now - options.orphanRetentionMs,
      maxListedFiles: options.maxListedFiles,
    })
    await release(now)
    return {
      tableId: info.tableId,
      status: 'done',
      expiredSnapshots: expired.expiredSnapshotIds.length,
      deletedFiles: expired.deletedFiles.length + orphans.deletedFiles.length,
    }
  } catch (e) {
    await release(null).catch(() => undefined)
    return { tableId: info.tableId, status: 'failed', error: toFlussError(e).message }
  }
}

/** Whether the table's last maintenance is at least `intervalMs` ago. */
export function maintenanceDue(lastMaintenanceMs: number | null, nowMs: number, intervalMs: number): boolean {
  return lastMaintenanceMs === null || nowMs - lastMaintenanceMs >= intervalMs
}
