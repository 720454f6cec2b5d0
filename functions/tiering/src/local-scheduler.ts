import { hostname } from 'node:os'
import { initArrowCodecs } from '@sluice/core/arrow'
import type { Configuration } from '@sluice/core/config'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TieringObserver } from './round/tiering-round.js'
import { DEFAULT_TIERING_PASS_OPTIONS, runTieringPass, type TieringPassSummary } from './scheduler.js'
import { createTieringServices, type TieringServiceOverrides } from './services.js'

/**
 * Local mode's stand-in for the EventBridge schedule: every `intervalMs` it runs the same
 * tiering pass the Lambda handler runs (due tables, one round each, maintenance), never two at
 * once. Each pass may use up to `passBudgetMs`.
 *
 *   const scheduler = await startLocalTieringScheduler({ config, intervalMs: 5000 })
 *   ...
 *   await scheduler.stop()
 */

export interface LocalTieringSchedulerOptions extends TieringServiceOverrides {
  /** The cluster configuration (`sluice.metastore.*`, `sluice.blobstore.*`, `datalake.iceberg.*`). */
  readonly config: Configuration
  /** Time between the end of one pass and the start of the next. */
  readonly intervalMs: number
  /** Longest a pass may run (default 60 s). */
  readonly passBudgetMs?: number
  /** Called after every pass (logging); errors are passed as a summary with `error`. */
  readonly onPass?: (summary: TieringPassSummary) => void
  /** Told of the tables and rounds of every pass (the process's TieringMetrics). */
  readonly observer?: TieringObserver
}

export interface LocalTieringScheduler {
  /** Runs a pass now (waiting for one in progress first). */
  runNow(): Promise<TieringPassSummary>
  /** Stops the timer, waits for a pass in progress and closes the services. */
  stop(): Promise<void>
}

export async function startLocalTieringScheduler(
  options: LocalTieringSchedulerOptions,
): Promise<LocalTieringScheduler> {
  const { intervalMs } = options
  const budgetMs = options.passBudgetMs ?? 60_000
  for (const v of [intervalMs, budgetMs]) {
    if (!Number.isSafeInteger(v) || v < 10 || v > 24 * 3_600_000) {
      throw new FlussError('INVALID_CONFIG_EXCEPTION', `invalid tiering scheduler interval or budget ${v}`)
    }
  }
  await initArrowCodecs()
  const services = await createTieringServices(options.config, options)
  const deps = {
    ...services,
    ownerId: `local/${hostname()}/${process.pid}`,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  }
  let running: Promise<TieringPassSummary> | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  const pass = (): Promise<TieringPassSummary> => {
    running ??= runTieringPass(deps, Date.now() + budgetMs, {
      ...DEFAULT_TIERING_PASS_OPTIONS,
      minRemainingMs: Math.min(DEFAULT_TIERING_PASS_OPTIONS.minRemainingMs, budgetMs / 4),
    })
      .catch(e => ({ ...emptySummary(), error: toFlussError(e).message }))
      .then(summary => {
        options.onPass?.(summary)
        return summary
      })
      .finally(() => {
        running = undefined
      })
    return running
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      void pass().finally(schedule)
    }, intervalMs)
  }
  schedule()
  return {
    async runNow() {
      if (running !== undefined) await running
      return pass()
    },
    async stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await running
      await services.close()
    },
  }
}

function emptySummary(): TieringPassSummary {
  return {
    startedAtMs: Date.now(),
    durationMs: 0,
    lakeTables: 0,
    dueTables: 0,
    deferredTables: 0,
    rounds: [],
    maintenance: [],
  }
}
