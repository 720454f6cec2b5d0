import { TABLE_DATALAKE_FRESHNESS } from '@sluice/core/config'
import { toFlussError } from '@sluice/core/errors'
import { type TableInfo, tablePathToString } from '@sluice/core/metadata'
import { type LakeItem, readLakeItem } from './round/lake-item.js'
import {
  DEFAULT_MAINTENANCE_OPTIONS,
  type MaintenanceOptions,
  type MaintenanceResult,
  maintenanceDue,
  runMaintenance,
} from './round/maintenance-round.js'
import type { RoundResult } from './round/round-result.js'
import { runTieringRound, type TieringRoundDeps } from './round/tiering-round.js'

/**
 * One scheduling pass, shared by the Lambda handler and the local scheduler: find the
 * lake-enabled tables that are due, run one round for each while time remains, then maintenance
 * for those whose interval passed.
 *
 * A table is due when it was never tiered or its last round ended at least half its
 * `table.datalake.freshness` ago (so the lake lags by at most about the freshness plus a round),
 * and no other round holds it. The most overdue tables go first.
 */

export interface TieringPassOptions {
  /** No new round starts when less than this remains before the deadline. */
  readonly minRemainingMs: number
  /** Most tables tiered in one pass. */
  readonly maxTablesPerPass: number
  readonly maintenance: MaintenanceOptions
}

export const DEFAULT_TIERING_PASS_OPTIONS: TieringPassOptions = {
  minRemainingMs: 30_000,
  maxTablesPerPass: 100,
  maintenance: DEFAULT_MAINTENANCE_OPTIONS,
}

export interface TieringPassSummary {
  readonly startedAtMs: number
  readonly durationMs: number
  readonly lakeTables: number
  readonly dueTables: number
  /** Due tables left for the next pass (out of time or over `maxTablesPerPass`). */
  readonly deferredTables: number
  readonly rounds: readonly RoundSummary[]
  readonly maintenance: readonly MaintenanceResult[]
  readonly error?: string
}

/** A round result in JSON-safe form (snapshot id as a string). */
export interface RoundSummary extends Omit<RoundResult, 'snapshotId' | 'tablePath'> {
  readonly table: string
  readonly snapshotId?: string
}

/** How overdue a table is: elapsed time since its last round over half its freshness (≥ 1 is due). */
export function dueness(info: TableInfo, item: LakeItem, nowMs: number): number {
  if (item.claimExpiresAtMs > nowMs) return 0
  if (item.lastRoundEndMs === null) return Number.POSITIVE_INFINITY
  const half = Math.max(1, info.tableConfig.get(TABLE_DATALAKE_FRESHNESS) / 2)
  return (nowMs - item.lastRoundEndMs) / half
}

export function roundSummary(r: RoundResult): RoundSummary {
  const { snapshotId, tablePath, ...rest } = r
  return {
    ...rest,
    table: tablePathToString(tablePath),
    ...(snapshotId === undefined ? {} : { snapshotId: String(snapshotId) }),
  }
}

/** Runs the due rounds (and maintenance) until `deadlineMs`. */
export async function runTieringPass(
  deps: TieringRoundDeps,
  deadlineMs: number,
  options: TieringPassOptions = DEFAULT_TIERING_PASS_OPTIONS,
): Promise<TieringPassSummary> {
  const clock = deps.clock ?? Date.now
  const startedAtMs = clock()
  const rounds: RoundSummary[] = []
  const maintenance: MaintenanceResult[] = []
  let lakeTables = 0
  let due: { info: TableInfo; item: LakeItem; score: number }[] = []
  try {
    const tables = await deps.metadata.listLakeTables()
    lakeTables = tables.length
    for (const info of tables) {
      const { item } = await readLakeItem(deps.metaStore, info.tableId)
      deps.observer?.observeTable(info, item)
      const score = dueness(info, item, startedAtMs)
      if (score >= 1) due.push({ info, item, score })
    }
  } catch (e) {
    return summary(startedAtMs, clock(), lakeTables, 0, 0, rounds, maintenance, toFlussError(e).message)
  }
  due.sort((a, b) => b.score - a.score)
  due = due.slice(0, options.maxTablesPerPass)
  let ran = 0
  for (const { info, item } of due) {
    const remaining = deadlineMs - clock()
    if (remaining < options.minRemainingMs) break
    const claimTtlMs = Math.max(1000, remaining + options.minRemainingMs)
    const result = await runTieringRound({ ...deps, options: { ...deps.options, claimTtlMs } }, info)
    deps.observer?.round(result)
    rounds.push(roundSummary(result))
    ran++
    const m = options.maintenance
    if (result.status !== 'fenced' && maintenanceDue(item.lastMaintenanceMs, clock(), m.intervalMs)) {
      if (deadlineMs - clock() >= options.minRemainingMs)
        maintenance.push(await runMaintenance(deps, info, m))
    }
  }
  return summary(startedAtMs, clock(), lakeTables, due.length, due.length - ran, rounds, maintenance)
}

function summary(
  startedAtMs: number,
  endMs: number,
  lakeTables: number,
  dueTables: number,
  deferredTables: number,
  rounds: RoundSummary[],
  maintenance: MaintenanceResult[],
  error?: string,
): TieringPassSummary {
  return {
    startedAtMs,
    durationMs: endMs - startedAtMs,
    lakeTables,
    dueTables,
    deferredTables,
    rounds,
    maintenance,
    ...(error === undefined ? {} : { error }),
  }
}
