import {
  type Configuration,
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FRESHNESS,
  TABLE_LOG_LOCAL_TTL,
  TABLE_LOG_TIERED_LOCAL_SEGMENTS,
  TABLE_LOG_TTL,
} from '@sluice/core/config'
import type { FlussError } from '@sluice/core/errors'
import type { PhysicalTablePath, TableBucket } from '@sluice/core/metadata'
import type { LogTablet } from '../log/index.js'

/** The part of a LogTablet the remote log uses: it reads sealed files and deletes old segments. */
export type RemoteLogSource = Pick<
  LogTablet,
  | 'name'
  | 'highWatermark'
  | 'logStartOffset'
  | 'logEndOffset'
  | 'isClosed'
  | 'sealedSegments'
  | 'deleteSegmentsBelow'
  | 'maybeRoll'
>

/** Table options the remote log follows; read again on every run, since they can be altered. */
export interface RemoteLogTableOptions {
  /** `table.log.ttl`: remote segments older than this are deleted; 0 keeps them forever. */
  readonly logTtlMs: number
  /** `table.log.tiered.local-segments`: local segments (the active one included) kept after upload. */
  readonly localSegments: number
  /**
   * `table.log.local-ttl` (unset: `table.log.ttl`): an uploaded local segment whose newest record is
   * older than this is deleted locally even when `localSegments` would keep it; 0 disables the rule.
   */
  readonly localTtlMs: number
  /** `table.datalake.enabled`: also seal the active segment by age, see `datalakeFreshnessMs`. */
  readonly datalakeEnabled: boolean
  /** `table.datalake.freshness`: a lake table's active segment is sealed at half this age. */
  readonly datalakeFreshnessMs: number
}

export function remoteLogTableOptions(table: Configuration): RemoteLogTableOptions {
  return {
    logTtlMs: table.get(TABLE_LOG_TTL),
    localSegments: table.get(TABLE_LOG_TIERED_LOCAL_SEGMENTS),
    localTtlMs: table.getOptional(TABLE_LOG_LOCAL_TTL) ?? table.get(TABLE_LOG_TTL),
    datalakeEnabled: table.get(TABLE_DATALAKE_ENABLED),
    datalakeFreshnessMs: table.get(TABLE_DATALAKE_FRESHNESS),
  }
}

/** A bucket replica registered with the RemoteLogManager. */
export interface RemoteLogReplica {
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly log: RemoteLogSource
  /** The leader epoch this server holds the bucket with (fences manifest commits). */
  readonly leaderEpoch: number
  readonly tableOptions: () => RemoteLogTableOptions
  /**
   * For lake tables: the log end offset already in the lake; remote segments past it are kept
   * whatever their age (Fluss deletes only tiered segments). Null or absent: no such limit.
   */
  readonly lakeLogEndOffset?: () => number | null
  /** Local segments holding this offset or above are never deleted (e.g. KV recovery needs them). */
  readonly minRetainOffset?: () => number
  /** Called once when a manifest commit finds a newer leader epoch; the task has stopped. */
  readonly onFenced?: (error: FlussError) => void
}

export interface RemoteLogLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_REMOTE_LOG_LOGGER: RemoteLogLogger = { info() {}, warn() {} }
