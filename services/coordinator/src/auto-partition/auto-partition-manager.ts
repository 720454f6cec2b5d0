import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableInfo, tablePathToString } from '@sluice/core/metadata'
import { type Clock, SYSTEM_CLOCK, systemTimer, type Timer, type TimerHandle } from '@sluice/core/util'
import { applyAutoPartitionPlan, logError } from './apply-plan.js'
import { dayCreateDelayMinutes, planAutoPartitions } from './auto-partition-plan.js'
import { autoPartitionSettings, MACHINE_TIME_ZONE_ID } from './auto-partition-settings.js'
import {
  type AutoPartitionLogger,
  type AutoPartitionManagerOptions,
  SILENT_AUTO_PARTITION_LOGGER,
  type TableCheckResult,
} from './partition-ops.js'

/** Standalone, the manager's checks do not keep the process alive; the coordinator passes its timer. */
const UNREFERENCED_TIMER = systemTimer({ unref: true })

interface QueuedTableCheck {
  /** Updated by later callers until the check starts. */
  readonly request: { table: TableInfo; force: boolean }
  readonly result: Promise<TableCheckResult>
}

/**
 * Creates and drops the time partitions of auto-partitioned tables (Fluss's
 * `AutoPartitionManager`). Every `checkIntervalMs` it reads the tables and their partitions and
 * applies `planAutoPartitions`; a failure on one partition or table is logged and the others go on.
 * Checks never overlap: `checkNow`, `checkTable` and the timer run one after another.
 */
export class AutoPartitionManager {
  readonly #opts: AutoPartitionManagerOptions
  readonly #clock: Clock
  readonly #timer: Timer
  readonly #logger: AutoPartitionLogger
  #tail: Promise<unknown> = Promise.resolve()
  #handle: TimerHandle | undefined = undefined
  #running = false
  /** Checks queued but not started, so that repeated calls share one check (at most one per table). */
  #queuedAll: Promise<TableCheckResult[]> | undefined = undefined
  readonly #queuedTables = new Map<number, QueuedTableCheck>()

  constructor(options: AutoPartitionManagerOptions) {
    if (!Number.isSafeInteger(options.checkIntervalMs) || options.checkIntervalMs < 1) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `auto-partition.check.interval must be at least 1 ms, but is ${options.checkIntervalMs}.`,
      )
    }
    this.#opts = options
    this.#clock = options.clock ?? SYSTEM_CLOCK
    this.#timer = options.timer ?? UNREFERENCED_TIMER
    this.#logger = options.logger ?? SILENT_AUTO_PARTITION_LOGGER
  }

  /** Checks all tables now, then every interval (like Fluss after loading the tables at startup). */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#schedule(0)
  }

  /** Stops the timer and waits for a check in progress. */
  async stop(): Promise<void> {
    this.#running = false
    this.#handle?.cancel()
    this.#handle = undefined
    await this.#tail.catch(() => undefined)
  }

  /** One periodic check of every auto-partitioned table (DAY creation jittered). */
  checkNow(): Promise<TableCheckResult[]> {
    this.#queuedAll ??= this.#enqueue(() => {
      this.#queuedAll = undefined
      return this.#checkAll()
    })
    return this.#queuedAll
  }

  /**
   * Checks one table now. `force` (the default, used after CREATE TABLE and ALTER TABLE) skips the
   * DAY creation delay, as Fluss does for a newly added or updated table.
   */
  checkTable(table: TableInfo, force = true): Promise<TableCheckResult> {
    if (!table.isAutoPartitioned) {
      const result = { tableId: table.tableId, tablePath: tablePathToString(table.tablePath) }
      return Promise.resolve({ ...result, dropped: [], created: [], failures: [] })
    }
    const queued = this.#queuedTables.get(table.tableId)
    if (queued !== undefined) {
      queued.request.table = table
      queued.request.force ||= force
      return queued.result
    }
    const request = { table, force }
    const result = this.#enqueue(() => {
      this.#queuedTables.delete(table.tableId)
      return this.#checkTable(request.table, this.#clock.nowMs(), request.force)
    })
    this.#queuedTables.set(table.tableId, { request, result })
    return result
  }

  #enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(work)
    this.#tail = run.catch(() => undefined)
    return run
  }

  #schedule(delayMs: number): void {
    this.#handle = this.#timer.schedule(delayMs, () => {
      this.#handle = undefined
      const next = () => {
        if (this.#running && this.#handle === undefined) this.#schedule(this.#opts.checkIntervalMs)
      }
      this.checkNow().then(next, e => {
        logError(this.#logger, 'Auto partitioning check failed.', { error: toFlussError(e).message })
        next()
      })
    })
  }

  async #checkAll(): Promise<TableCheckResult[]> {
    const nowMs = this.#clock.nowMs()
    let tables: readonly TableInfo[]
    try {
      tables = await this.#opts.tables.listAutoPartitionedTables()
    } catch (e) {
      logError(this.#logger, 'Auto partitioning skipped: failed to list the auto-partitioned tables.', {
        error: toFlussError(e).message,
      })
      return []
    }
    this.#logger.info(`Start auto partitioning for ${tables.length} tables.`, { nowMs })
    const results: TableCheckResult[] = []
    for (const table of tables) {
      if (table.isAutoPartitioned) results.push(await this.#checkTable(table, nowMs, false))
    }
    return results
  }

  async #checkTable(table: TableInfo, nowMs: number, force: boolean): Promise<TableCheckResult> {
    const base = { tableId: table.tableId, tablePath: tablePathToString(table.tablePath) }
    let plan: ReturnType<typeof planAutoPartitions>
    try {
      const settings = autoPartitionSettings(table, this.#opts.systemTimeZoneId ?? MACHINE_TIME_ZONE_ID)
      const existing = await this.#opts.partitions.listPartitions(table.tableId)
      const delayOf = this.#opts.dayCreateDelayMinutes ?? dayCreateDelayMinutes
      const delayMinutes = !force && settings.timeUnit === 'DAY' ? delayOf(table.tableId) : 0
      plan = planAutoPartitions(settings, nowMs, existing, delayMinutes)
    } catch (e) {
      const error = toFlussError(e)
      this.#logger.warn(`Skipping auto partitioning for table [${base.tablePath}].`, {
        ...base,
        error: error.message,
      })
      return { ...base, dropped: [], created: [], failures: [], skipped: error }
    }
    return { ...base, ...(await applyAutoPartitionPlan(this.#opts.partitions, this.#logger, table, plan)) }
  }
}
