import {
  CLIENT_REQUEST_TIMEOUT,
  type Configuration,
  INTERNAL_LISTENER_NAME,
  NETTY_CONNECTION_MAX_IDLE_TIME,
  NETTY_SERVER_MAX_REQUEST_SIZE,
  SLUICE_COORDINATOR_LEASE_RENEW_INTERVAL,
  SLUICE_COORDINATOR_MEMBERSHIP_POLL_INTERVAL,
  SLUICE_COORDINATOR_METASTORE_CONCURRENCY,
  SLUICE_COORDINATOR_NOTIFY_MAX_BUCKETS,
  SLUICE_COORDINATOR_NOTIFY_RETRY_BACKOFF,
  SLUICE_COORDINATOR_NOTIFY_RETRY_MAX_BACKOFF,
  SLUICE_COORDINATOR_ORPHAN_GRACE_PERIOD,
  SLUICE_COORDINATOR_ORPHAN_REPAIR_INTERVAL,
  SLUICE_RPC_SERVER_MAX_CONNECTIONS,
  SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_SERVER_REQUEST_TIMEOUT,
  SLUICE_SECURITY_SSL_RELOAD_INTERVAL,
} from '@sluice/core/config'
import type { Endpoint } from '@sluice/core/control-plane'
import type { RpcLogger, RpcServerOptions } from '@sluice/core/rpc'
import type { ListenerSecurity } from '@sluice/core/security'
import { ddlSettings } from '../ddl/table-ddl-service.js'
import type { CoordinatorControllerOptions } from './coordinator-controller.js'

/** The coordinator's settings read from its configuration (every key's default applies when unset). */

export type ControllerSettings = Pick<
  CoordinatorControllerOptions,
  'settings' | 'internalListenerName' | 'orphanGraceMs' | 'concurrency' | 'notify'
>

export function controllerSettings(config: Configuration): ControllerSettings {
  return {
    settings: ddlSettings(config),
    internalListenerName: config.get(INTERNAL_LISTENER_NAME),
    orphanGraceMs: config.get(SLUICE_COORDINATOR_ORPHAN_GRACE_PERIOD),
    concurrency: config.get(SLUICE_COORDINATOR_METASTORE_CONCURRENCY),
    notify: {
      retryBackoffMs: config.get(SLUICE_COORDINATOR_NOTIFY_RETRY_BACKOFF),
      retryMaxBackoffMs: config.get(SLUICE_COORDINATOR_NOTIFY_RETRY_MAX_BACKOFF),
      maxBucketsPerRequest: config.get(SLUICE_COORDINATOR_NOTIFY_MAX_BUCKETS),
      requestTimeoutMs: config.get(CLIENT_REQUEST_TIMEOUT),
    },
  }
}

export interface LoopIntervals {
  readonly leaseRenewMs: number
  readonly membershipPollMs: number
  readonly orphanRepairMs: number
}

export function loopIntervals(config: Configuration): LoopIntervals {
  return {
    leaseRenewMs: config.get(SLUICE_COORDINATOR_LEASE_RENEW_INTERVAL),
    membershipPollMs: config.get(SLUICE_COORDINATOR_MEMBERSHIP_POLL_INTERVAL),
    orphanRepairMs: config.get(SLUICE_COORDINATOR_ORPHAN_REPAIR_INTERVAL),
  }
}

export function rpcServerOptions(
  config: Configuration,
  listener: Endpoint,
  logger: RpcLogger,
  security?: ListenerSecurity,
): RpcServerOptions {
  return {
    role: 'coordinator',
    ...(security === undefined ? {} : { security }),
    tlsReloadIntervalMs: config.get(SLUICE_SECURITY_SSL_RELOAD_INTERVAL),
    host: listener.host,
    port: listener.port,
    listenerName: listener.listenerName,
    maxRequestBytes: config.get(NETTY_SERVER_MAX_REQUEST_SIZE),
    idleTimeoutMs: config.get(NETTY_CONNECTION_MAX_IDLE_TIME),
    requestTimeoutMs: config.get(SLUICE_RPC_SERVER_REQUEST_TIMEOUT),
    maxInFlightPerConnection: config.get(SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS),
    maxConnections: config.get(SLUICE_RPC_SERVER_MAX_CONNECTIONS),
    logger,
  }
}
