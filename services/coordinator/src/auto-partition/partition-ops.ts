import type { FlussError } from '@sluice/core/errors'
import type { ResolvedPartitionSpec, TableInfo } from '@sluice/core/metadata'
import type { Clock, Timer } from '@sluice/core/util'

/** The I/O the auto-partition manager needs, injected by the coordinator (and faked in tests). */

/** The auto-partitioned tables, read again at every check so that ALTERed options apply. */
export interface AutoPartitionTableSource {
  listAutoPartitionedTables(): Promise<readonly TableInfo[]>
}

/** Partition DDL as the coordinator performs it (limits such as `max.partition.num` included). */
export interface PartitionOps {
  /** Names of the table's visible partitions. */
  listPartitions(tableId: number): Promise<readonly string[]>
  createPartition(table: TableInfo, spec: ResolvedPartitionSpec, ignoreIfExists: boolean): Promise<void>
  dropPartition(table: TableInfo, partitionName: string): Promise<void>
}

/** The coordinator's logger; `error` falls back to `warn` when absent. */
export interface AutoPartitionLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error?(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_AUTO_PARTITION_LOGGER: AutoPartitionLogger = { info() {}, warn() {}, error() {} }

export interface AutoPartitionManagerOptions {
  readonly tables: AutoPartitionTableSource
  readonly partitions: PartitionOps
  /** `auto-partition.check.interval`. */
  readonly checkIntervalMs: number
  readonly clock?: Clock
  readonly timer?: Timer
  readonly logger?: AutoPartitionLogger
  /** The zone `table.auto-partition.time-zone=system` stands for; the machine's by default. */
  readonly systemTimeZoneId?: string
  /** The DAY creation delay of a table, in minutes; `dayCreateDelayMinutes` by default. */
  readonly dayCreateDelayMinutes?: (tableId: number) => number
}

export interface PartitionFailure {
  readonly partitionName: string
  readonly op: 'create' | 'drop'
  readonly error: FlussError
}

/** What one check did to one table. */
export interface TableCheckResult {
  readonly tableId: number
  readonly tablePath: string
  readonly dropped: readonly string[]
  readonly created: readonly string[]
  readonly failures: readonly PartitionFailure[]
  /** Set when the whole table was skipped (unreadable settings or partitions). */
  readonly skipped?: FlussError
}
