import { randomUUID } from 'node:crypto'
import { initArrowCodecs } from '@sluice/core/arrow'
import { loadServerConfig } from '@sluice/core/config'
import { toFlussError } from '@sluice/core/errors'
import {
  DEFAULT_TIERING_PASS_OPTIONS,
  runTieringPass,
  type TieringPassOptions,
  type TieringPassSummary,
} from './scheduler.js'
import { createTieringServices, type TieringServices } from './services.js'

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

/** The services of this container, from FLUSS_CONF (the only place the environment is read). */
export async function servicesFromEnvironment(): Promise<TieringServices> {
  const { config, warnings } = loadServerConfig({ env: process.env })
  for (const w of warnings) console.warn(`[tiering] ${w}`)
  await initArrowCodecs()
  return createTieringServices(config)
}

export type TieringHandler = (event?: unknown, context?: TieringLambdaContext) => Promise<TieringPassSummary>

/** A handler over services built once by `boot` (rebuilt after a failed build). */
export function tieringHandler(
  boot: () => Promise<TieringServices>,
  options: TieringPassOptions = DEFAULT_TIERING_PASS_OPTIONS,
): TieringHandler {
  let services: Promise<TieringServices> | undefined
  return async (_event, context) => {
    const deadlineMs = Date.now() + (context?.getRemainingTimeInMillis?.() ?? DEFAULT_BUDGET_MS)
    services ??= boot()
    let s: TieringServices
    try {
      s = await services
    } catch (e) {
      services = undefined
      const error = toFlussError(e)
      console.error(`[tiering] cannot start: ${error.errorName}: ${error.message}`)
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
      },
      deadlineMs,
      options,
    )
    console.log(JSON.stringify({ tiering: summary }))
    return summary
  }
}

/** The Lambda handler (entry `functions/tiering/src/handler.ts`, export `handler`). */
export const handler: TieringHandler = tieringHandler(servicesFromEnvironment)
