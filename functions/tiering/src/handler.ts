import { randomUUID } from 'node:crypto'
import { initArrowCodecs } from '@sluice/core/arrow'
import { loadServerConfig } from '@sluice/core/config'
import { toFlussError } from '@sluice/core/errors'
import { createLogger, loggerFromConfig } from '@sluice/core/log'
import { type EmfPublisher, startProcessMetrics } from '@sluice/core/metrics'
import type { TieringObserver } from './round/tiering-round.js'
import {
  DEFAULT_TIERING_PASS_OPTIONS,
  runTieringPass,
  type TieringPassOptions,
  type TieringPassSummary,
} from './scheduler.js'
import { createTieringServices, type TieringServices } from './services.js'
import { TieringMetrics } from './tiering-metrics.js'

/**
 * The Lambda entry point, invoked by the EventBridge Scheduler schedule: one tiering pass over the
 * due lake tables within the invocation's remaining time (rounds, then maintenance), answered
 * with a JSON summary. The only reader of the environment: the configuration comes from
 * FLUSS_CONF. Services are built on the first invocation and reused by the container; a failed
 * build is retried by the next invocation.
 */

/** The part of the Lambda context the handler uses. */
export interface TieringLambdaContext {
  readonly awsRequestId?: string
  getRemainingTimeInMillis?(): number
}

/** Time assumed when the context does not tell (a local call). */
const DEFAULT_BUDGET_MS = 5 * 60_000

/** The lake metrics of the embedded-metric-format line written after every pass. */
export const TIERING_EMF_METRICS = [
  {
    from: 'fluss_tiering_table_tierLagOverFreshness',
    name: 'tierLagOverFreshnessMax',
    unit: 'None',
    kind: 'max',
  },
  { from: 'fluss_tiering_table_tierLag', name: 'tierLagMaxMs', unit: 'Milliseconds', kind: 'max' },
  { from: 'fluss_tiering_table_failures_total', name: 'tieringFailures', unit: 'Count', kind: 'delta' },
  { from: 'fluss_tiering_table_records_total', name: 'recordsTiered', unit: 'Count', kind: 'delta' },
] as const

/** Services plus what reports on them (with `sluice.metrics.emf.interval` set). */
export interface ObservedTieringServices extends TieringServices {
  readonly observer?: TieringObserver
  /** Writes the EMF line; the handler calls it after each pass (a frozen container runs no timers). */
  readonly emf?: EmfPublisher
}

/** The services of this container, from FLUSS_CONF (the only place the environment is read). */
export async function servicesFromEnvironment(): Promise<ObservedTieringServices> {
  const { config, warnings } = loadServerConfig({ env: process.env })
  const logger = loggerFromConfig(config, 'tiering')
  for (const w of warnings) logger.warn(w)
  await initArrowCodecs()
  const metrics = await startProcessMetrics(config, { scope: 'tiering', emfMetrics: TIERING_EMF_METRICS })
  const services = await createTieringServices(config)
  if (metrics === undefined) return services
  return {
    ...services,
    observer: new TieringMetrics(metrics.registry),
    ...(metrics.emf === undefined ? {} : { emf: metrics.emf }),
  }
}

export type TieringHandler = (event?: unknown, context?: TieringLambdaContext) => Promise<TieringPassSummary>

/** A handler over services built once by `boot` (rebuilt after a failed build). */
export function tieringHandler(
  boot: () => Promise<ObservedTieringServices>,
  options: TieringPassOptions = DEFAULT_TIERING_PASS_OPTIONS,
): TieringHandler {
  let services: Promise<ObservedTieringServices> | undefined
  return async (_event, context) => {
    const deadlineMs = Date.now() + (context?.getRemainingTimeInMillis?.() ?? DEFAULT_BUDGET_MS)
    services ??= boot()
    let s: ObservedTieringServices
    try {
      s = await services
    } catch (e) {
      services = undefined
      const error = toFlussError(e)
      createLogger({ component: 'tiering' }).error('cannot start', { error })
      throw error
    }
    const summary = await runTieringPass(
      {
        metaStore: s.metaStore,
        blobStore: s.blobStore,
        lakeIo: s.lakeIo,
        lakeCatalog: s.lakeCatalog,
        metadata: s.metadata,
        ownerId: `lambda/${context?.awsRequestId ?? randomUUID()}`,
        ...(s.observer === undefined ? {} : { observer: s.observer }),
      },
      deadlineMs,
      options,
    )
    console.log(JSON.stringify({ tiering: summary }))
    await s.emf?.publish()
    return summary
  }
}

/** The Lambda handler (entry `functions/tiering/src/handler.ts`, export `handler`). */
export const handler: TieringHandler = tieringHandler(servicesFromEnvironment)
