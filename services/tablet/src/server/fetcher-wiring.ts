import {
  CLIENT_REQUEST_TIMEOUT,
  type Configuration,
  LOG_REPLICA_FETCH_BACKOFF_INTERVAL,
  LOG_REPLICA_FETCH_MAX_BYTES,
  LOG_REPLICA_FETCH_MAX_BYTES_FOR_BUCKET,
  LOG_REPLICA_FETCH_MIN_BYTES,
  LOG_REPLICA_FETCH_WAIT_MAX_TIME,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { ConnectionPool } from '@sluice/core/rpc'
import type { ServerEndpoint } from '../control-plane/control-plane.js'
import { ReplicaFetcherManager } from '../replica/fetcher/replica-fetcher-manager.js'
import type { ReplicaManager } from '../replica/replica-manager.js'

export interface FetcherWiring {
  readonly config: Configuration
  readonly pool: ConnectionPool
  readonly internalListenerName: string
  readonly warn: (message: string, error?: unknown, fields?: Readonly<Record<string, unknown>>) => void
}

/** Builds the follower fetchers with the `log.replica.fetch.*` settings and leader address lookup. */
export function createFetcherManager(manager: ReplicaManager, wiring: FetcherWiring): ReplicaFetcherManager {
  const { config } = wiring
  return new ReplicaFetcherManager({
    localServerId: manager.serverId,
    pool: wiring.pool,
    settings: {
      maxBytes: config.get(LOG_REPLICA_FETCH_MAX_BYTES),
      maxBytesForBucket: config.get(LOG_REPLICA_FETCH_MAX_BYTES_FOR_BUCKET),
      minBytes: config.get(LOG_REPLICA_FETCH_MIN_BYTES),
      maxWaitMs: config.get(LOG_REPLICA_FETCH_WAIT_MAX_TIME),
      backoffMs: config.get(LOG_REPLICA_FETCH_BACKOFF_INTERVAL),
      requestTimeoutMs: config.get(CLIENT_REQUEST_TIMEOUT),
    },
    replica: bucket => manager.getReplica(bucket),
    leaderEndpoint: leaderId => leaderEndpoint(manager, leaderId, wiring.internalListenerName),
    warn: wiring.warn,
  })
}

/**
 * A leader's address on the internal listener: from UPDATE_METADATA when the coordinator sent it,
 * else from the leader's membership lease (a control-plane read, off the data path).
 */
export async function leaderEndpoint(
  manager: ReplicaManager,
  leaderId: number,
  listenerName: string,
): Promise<{ host: string; port: number }> {
  const cached = manager.metadataCache.serverEndpoints(leaderId)
  const endpoints = cached ?? (await manager.controlPlane.getTabletServer(leaderId))?.endpoints
  if (endpoints === undefined || endpoints.length === 0) {
    throw new FlussError(
      'LEADER_NOT_AVAILABLE_EXCEPTION',
      `no address is known for tablet server ${leaderId}`,
    )
  }
  const e: ServerEndpoint = endpoints.find(x => x.listenerName === listenerName) ?? endpoints[0]
  return { host: e.host, port: e.port }
}
