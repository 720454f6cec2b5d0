import type { LogReadParams, LogReadResult } from '../../log/log-tablet-types.js'
import type { KvChangelogLog } from '../kv-tablet-types.js'

/** The part of a RemoteLogReader that recovery reads the changelog through. */
export interface RemoteChangelogSource {
  canFetch(offset: number): boolean
  earliestOffset(localLogStartOffset: number): number
  read(params: {
    readonly fetchOffset: number
    readonly maxBytes: number
    readonly minOneMessage: boolean
  }): Promise<{ readonly records: Buffer }>
}

/**
 * The bucket's log as recovery sees it: local segments, and below the local log start the
 * remote (tiered) segments, so a snapshot older than the local log can still be brought up to date.
 * Appends and writer state go to the local log unchanged.
 */
export function withRemoteChangelog(
  log: KvChangelogLog,
  remote: RemoteChangelogSource | null,
): KvChangelogLog {
  if (remote === null) return log
  return {
    get name() {
      return log.name
    },
    get logStartOffset() {
      return remote.earliestOffset(log.logStartOffset)
    },
    get logEndOffset() {
      return log.logEndOffset
    },
    get highWatermark() {
      return log.highWatermark
    },
    appendAsLeader: records => log.appendAsLeader(records),
    writerState: writerId => log.writerState(writerId),
    async read(params: LogReadParams): Promise<LogReadResult> {
      if (params.fetchOffset >= log.logStartOffset || !remote.canFetch(params.fetchOffset))
        return log.read(params)
      const { records } = await remote.read(params)
      return {
        records,
        highWatermark: log.highWatermark,
        logStartOffset: remote.earliestOffset(log.logStartOffset),
        logEndOffset: log.logEndOffset,
      }
    },
  }
}
