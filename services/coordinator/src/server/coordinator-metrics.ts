import { type MetricRegistry, RequestMetrics } from '@sluice/core/metrics'
import type { CoordinatorController } from './coordinator-controller.js'

/** What the coordinator's gauges read. */
export interface CoordinatorMetricSources {
  readonly isActive: () => boolean
  readonly controller: CoordinatorController
  readonly connections: () => number
}

/**
 * Fluss's coordinator metrics (`fluss_coordinator_*`), read when scraped from the active
 * coordinator's view (a standby reports 0 for the cluster gauges), plus request metrics of its
 * listeners. `offlineBucketCount`: buckets whose leader is none or a server without a live lease.
 */
export function coordinatorMetrics(registry: MetricRegistry, s: CoordinatorMetricSources): RequestMetrics {
  const active =
    <T>(read: () => T, idle: T) =>
    () =>
      s.isActive() ? read() : idle
  const context = s.controller.context
  registry.gauge(
    'activeCoordinatorCount',
    'Whether this coordinator is the active one (1) or a standby (0)',
    () => (s.isActive() ? 1 : 0),
  )
  registry.gauge(
    'activeTabletServerCount',
    'Tablet servers with a live lease',
    active(() => s.controller.membership.live().length, 0),
  )
  registry.gauge(
    'tableCount',
    'Tables in the cluster',
    active(() => context.tables().length, 0),
  )
  registry.gauge(
    'bucketCount',
    'Buckets in the cluster',
    active(() => context.bucketCount, 0),
  )
  registry.gauge(
    'partitionCount',
    'Partitions in the cluster',
    active(() => context.partitionCount, 0),
  )
  registry.gauge(
    'offlineBucketCount',
    'Buckets without a live leader',
    active(() => {
      const live = s.controller.membership.liveIds()
      return context.buckets().filter(b => b.leaderAndIsr.leader === null || !live.has(b.leaderAndIsr.leader))
        .length
    }, 0),
  )
  return new RequestMetrics(registry, s.connections)
}
