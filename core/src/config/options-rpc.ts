import { type ConfigOption, option } from './option.js'

/**
 * RPC options that Fluss has no key for (Fluss bounds these through Netty's thread pools). The Fluss
 * keys the RPC layer also reads live in config/: netty.server.max-request-size,
 * netty.connection.max-idle-time, client.connect-timeout and client.request-timeout.
 */

export const SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS: ConfigOption<number> = option(
  'sluice.rpc.server.max-inflight-requests',
)
  .int()
  .default(500)
  .range(1, 100_000)
  .inScope('server')
  .description(
    'Requests a server processes at once for one connection (counted until the response is written); ' +
      'at the limit the server stops reading from that connection.',
  )

export const SLUICE_RPC_SERVER_REQUEST_TIMEOUT: ConfigOption<number> = option(
  'sluice.rpc.server.request-timeout',
)
  .duration()
  .default('60s')
  .range(1, '1h')
  .inScope('server')
  .description('Time a request handler may take before the request fails with REQUEST_TIME_OUT.')

export const SLUICE_RPC_SERVER_MAX_CONNECTIONS: ConfigOption<number> = option(
  'sluice.rpc.server.max-connections',
)
  .int()
  .default(10_000)
  .range(1, 1_000_000)
  .inScope('server')
  .description('Connections one server listener holds at once; further connections are refused.')

export const SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT: ConfigOption<number> = option(
  'sluice.rpc.server.shutdown-timeout',
)
  .duration()
  .default('10s')
  .range(0, '10min')
  .inScope('server')
  .description('On shutdown, how long in-flight requests may still finish before connections are dropped.')

export const SLUICE_RPC_CLIENT_MAX_INFLIGHT_REQUESTS: ConfigOption<number> = option(
  'sluice.rpc.client.max-inflight-requests',
)
  .int()
  .default(100)
  .range(1, 100_000)
  .inScope('client')
  .description('Requests a client keeps in flight on one connection; further requests wait in a queue.')

export const SLUICE_RPC_CLIENT_MAX_QUEUED_REQUESTS: ConfigOption<number> = option(
  'sluice.rpc.client.max-queued-requests',
)
  .int()
  .default(1000)
  .range(0, 1_000_000)
  .inScope('client')
  .description('Requests waiting for an in-flight slot on one connection; beyond it requests fail at once.')

export const SLUICE_RPC_CLIENT_MAX_RESPONSE_SIZE: ConfigOption<number> = option(
  'sluice.rpc.client.max-response-size',
)
  .memory()
  .default('256mb')
  .range('1kb', 2 ** 31 - 1)
  .inScope('client')
  .description('Largest response frame a client accepts; a larger one fails the connection.')

/** The options defined here, for the registry (config/options.ts). */
export const RPC_OPTIONS: readonly ConfigOption<number>[] = [
  SLUICE_RPC_SERVER_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_SERVER_REQUEST_TIMEOUT,
  SLUICE_RPC_SERVER_MAX_CONNECTIONS,
  SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT,
  SLUICE_RPC_CLIENT_MAX_INFLIGHT_REQUESTS,
  SLUICE_RPC_CLIENT_MAX_QUEUED_REQUESTS,
  SLUICE_RPC_CLIENT_MAX_RESPONSE_SIZE,
]
