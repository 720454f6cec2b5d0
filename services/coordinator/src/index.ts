export * from './assignment/assignment.js'
export * from './assignment/bucket-election.js'
export * from './assignment/replica-cleanup.js'
export * from './assignment/replica-leadership.js'
export * from './assignment/replica-notifier.js'
export * from './auto-partition/auto-partition-ops.js'
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
export * from './ddl/alter-table.js'
export * from './ddl/partition-ddl-service.js'
export * from './ddl/table-ddl-service.js'
export * from './election/leader-election.js'
export * from './membership/membership.js'
export * from './membership/server-probe.js'
export * from './repair/orphan-repair.js'
export * from './server/coordinator-config.js'
export * from './server/coordinator-context.js'
export * from './server/coordinator-controller.js'
export * from './server/coordinator-logger.js'
export * from './server/coordinator-server.js'
export * from './server/coordinator-service.js'
export * from './server/periodic-task.js'
