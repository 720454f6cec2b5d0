import { type ConfigOption, option } from './option.js'

/**
 * Tablet server limits that Fluss has no key for (Fluss bounds them through its thread pools and
 * purgatory sizes).
 */

export const SLUICE_TABLET_SERVER_FETCH_MAX_WAIT_TIME: ConfigOption<number> = option(
  'sluice.tablet-server.fetch.max-wait-time',
)
  .duration()
  .default('30s')
  .range(0, '5min')
  .inScope('server')
  .description(
    'Longest a FETCH_LOG request may be parked waiting for data (its max_wait_ms is capped to this).',
  )

export const SLUICE_TABLET_SERVER_MAX_DELAYED_OPERATIONS: ConfigOption<number> = option(
  'sluice.tablet-server.max-delayed-operations',
)
  .int()
  .default(10_000)
  .range(1, 1_000_000)
  .inScope('server')
  .description(
    'Parked long-poll fetches plus acks=all writes waiting for replication, per kind; beyond it a ' +
      'fetch is answered at once and an acks=all write fails with a retriable error.',
  )

export const SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS: ConfigOption<number> = option(
  'sluice.tablet-server.log.max-queued-operations',
)
  .int()
  .default(1000)
  .range(1, 1_000_000)
  .inScope('server')
  .description(
    'Appends and other mutations queued on one bucket log; more are refused with a retriable error.',
  )

export const SLUICE_TABLET_SERVER_LEASE_REGISTER_TIMEOUT: ConfigOption<number> = option(
  'sluice.tablet-server.lease-register-timeout',
)
  .duration()
  .default('2min')
  .range('1s', '30min')
  .inScope('server')
  .description(
    'How long a starting tablet server waits for the lease of a previous incarnation with its id to lapse.',
  )

export const SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE: ConfigOption<number> = option(
  'sluice.tablet-server.kv.row-cache-size',
)
  .memory()
  .default('256mb')
  .range(0, '1tb')
  .inScope('server')
  .description(
    "Memory of the server's cache of primary-key rows in front of RocksDB, shared by all its " +
      'buckets: lookups (and the merges of puts) of cached keys skip the RocksDB read. Rows enter ' +
      'when they are read; writes update cached rows. 0 disables the cache.',
  )

export const TABLET_OPTIONS: readonly ConfigOption<number>[] = [
  SLUICE_TABLET_SERVER_FETCH_MAX_WAIT_TIME,
  SLUICE_TABLET_SERVER_MAX_DELAYED_OPERATIONS,
  SLUICE_TABLET_SERVER_LOG_MAX_QUEUED_OPERATIONS,
  SLUICE_TABLET_SERVER_LEASE_REGISTER_TIMEOUT,
  SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE,
]
