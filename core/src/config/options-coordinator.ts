import { type ConfigOption, option } from './option.js'

/**
 * Coordinator options Fluss has no key for.
 */

export const SLUICE_COORDINATOR_MEMBERSHIP_POLL_INTERVAL: ConfigOption<number> = option(
  'sluice.coordinator.membership-poll-interval',
)
  .duration()
  .default('1s')
  .range('10ms', '1min')
  .inScope('server')
  .description(
    'How often the active coordinator reads the tablet server leases to find new and dead servers.',
  )

export const SLUICE_COORDINATOR_NOTIFY_RETRY_BACKOFF: ConfigOption<number> = option(
  'sluice.coordinator.notify-retry-backoff',
)
  .duration()
  .default('200ms')
  .range('1ms', '1min')
  .inScope('server')
  .description(
    'First pause before resending a leader/ISR or stop-replica notification a tablet server did not take.',
  )

export const SLUICE_COORDINATOR_NOTIFY_RETRY_MAX_BACKOFF: ConfigOption<number> = option(
  'sluice.coordinator.notify-retry-max-backoff',
)
  .duration()
  .default('10s')
  .range('1ms', '10min')
  .inScope('server')
  .description('Longest pause between resends of a notification; pauses double up to it.')

export const SLUICE_COORDINATOR_NOTIFY_MAX_BUCKETS: ConfigOption<number> = option(
  'sluice.coordinator.notify.max-buckets',
)
  .int()
  .default(1000)
  .range(1, 100_000)
  .inScope('server')
  .description('Most buckets one NotifyLeaderAndIsr or StopReplica request carries.')

export const SLUICE_COORDINATOR_ORPHAN_GRACE_PERIOD: ConfigOption<number> = option(
  'sluice.coordinator.orphan-grace-period',
)
  .duration()
  .default('2min')
  .range('1ms', '1d')
  .inScope('server')
  .description(
    'Age after which a table or partition creation that never reached its commit point is rolled back by the repair.',
  )

export const SLUICE_COORDINATOR_ORPHAN_REPAIR_INTERVAL: ConfigOption<number> = option(
  'sluice.coordinator.orphan-repair-interval',
)
  .duration()
  .default('5min')
  .range('10ms', '1d')
  .inScope('server')
  .description('How often the active coordinator looks for and repairs interrupted DDL.')

export const SLUICE_COORDINATOR_MAX_QUEUED_EVENTS: ConfigOption<number> = option(
  'sluice.coordinator.max-queued-events',
)
  .int()
  .default(1000)
  .range(1, 1_000_000)
  .inScope('server')
  .description('DDL requests and membership events waiting for the coordinator; more are refused.')

export const SLUICE_COORDINATOR_METASTORE_CONCURRENCY: ConfigOption<number> = option(
  'sluice.coordinator.metastore-concurrency',
)
  .int()
  .default(16)
  .range(1, 256)
  .inScope('server')
  .description('Metadata store reads the coordinator keeps in flight when it loads or scans the catalog.')

export const COORDINATOR_OPTIONS: readonly ConfigOption<number>[] = [
  SLUICE_COORDINATOR_MEMBERSHIP_POLL_INTERVAL,
  SLUICE_COORDINATOR_NOTIFY_RETRY_BACKOFF,
  SLUICE_COORDINATOR_NOTIFY_RETRY_MAX_BACKOFF,
  SLUICE_COORDINATOR_NOTIFY_MAX_BUCKETS,
  SLUICE_COORDINATOR_ORPHAN_GRACE_PERIOD,
  SLUICE_COORDINATOR_ORPHAN_REPAIR_INTERVAL,
  SLUICE_COORDINATOR_MAX_QUEUED_EVENTS,
  SLUICE_COORDINATOR_METASTORE_CONCURRENCY,
]
