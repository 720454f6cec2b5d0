import { toFlussError } from '@sluice/core/errors'
import type { ConnectionPool } from '@sluice/core/rpc'
import type { ControlPlane } from '../control-plane/control-plane.js'

export interface ControlledShutdownSettings {
  /** `tablet-server.controlled-shutdown.max-retries`: attempts (0 = skip the controlled shutdown). */
  readonly maxRetries: number
  /** `tablet-server.controlled-shutdown.retry-interval`. */
  readonly retryIntervalMs: number
  readonly requestTimeoutMs: number
}

export interface ControlledShutdownDeps {
  readonly serverId: number
  readonly controlPlane: Pick<ControlPlane, 'getActiveCoordinator'>
  readonly pool: Pick<ConnectionPool, 'request'>
}

/**
 * Fluss's controlled shutdown: asks the active coordinator (CONTROLLED_SHUTDOWN) to move this
 * server's leaderships to other in-sync replicas and take it out of the ISRs, until the answer
 * lists no bucket still led here, at most `maxRetries` times with `retryIntervalMs` between
 * attempts. True when every leadership moved.
 */
export async function controlledShutdown(
  deps: ControlledShutdownDeps,
  settings: ControlledShutdownSettings,
  warn: (message: string, error?: unknown) => void,
): Promise<boolean> {
  for (let attempt = 1; attempt <= settings.maxRetries; attempt++) {
    try {
      const coordinator = await deps.controlPlane.getActiveCoordinator()
      if (coordinator === undefined) {
        warn(`controlled shutdown of tablet server ${deps.serverId}: no active coordinator`)
      } else {
        const response = await deps.pool.request(
          { host: coordinator.host, port: coordinator.port, role: 'coordinator' },
          'CONTROLLED_SHUTDOWN',
          // Fluss 0.9.1 does not check the server epoch either; leases carry no such number.
          { tabletServerId: deps.serverId, tabletServerEpoch: 0 },
          { timeoutMs: settings.requestTimeoutMs },
        )
        const remaining = response.remainingLeaderBuckets.length
        if (remaining === 0) return true
        warn(`controlled shutdown of tablet server ${deps.serverId}: ${remaining} buckets are still led here`)
      }
    } catch (e) {
      warn(
        `controlled shutdown of tablet server ${deps.serverId} failed (attempt ${attempt})`,
        toFlussError(e),
      )
    }
    if (attempt < settings.maxRetries)
      await new Promise(resolve => setTimeout(resolve, settings.retryIntervalMs))
  }
  return false
}
