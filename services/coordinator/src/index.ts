export * from './alter-table.js'
export * from './assignment.js'
export {
  type AutoPartitionLogger,
  AutoPartitionManager,
  type AutoPartitionManagerOptions,
  type AutoPartitionPlan,
  type AutoPartitionSettings,
  type AutoPartitionTableSource,
  applyAutoPartitionPlan,
  autoPartitionSettings,
  type PartitionFailure,
  type PartitionOps,
  planAutoPartitions,
  SILENT_AUTO_PARTITION_LOGGER,
  type TableCheckResult,
} from './auto-partition/index.js'
export * from './auto-partition-ops.js'
export * from './bucket-election.js'
export * from './coordinator-config.js'
export * from './coordinator-context.js'
export * from './coordinator-controller.js'
export * from './coordinator-logger.js'
export * from './coordinator-server.js'
export * from './coordinator-service.js'
export * from './leader-election.js'
export * from './membership.js'
export * from './orphan-repair.js'
export * from './partition-ddl-service.js'
export * from './periodic-task.js'
export * from './replica-cleanup.js'
export * from './replica-leadership.js'
export * from './replica-notifier.js'
export * from './server-probe.js'
export * from './table-ddl-service.js'
