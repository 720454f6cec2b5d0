import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { Replica } from '../replica.js'
import { OffsetType } from '../replica-types.js'
import type { LeaderEpochQueries } from './leader-epoch-sync.js'
import type { ReplicaFetcherContext } from './replica-fetcher.js'

/** The leader's log bounds, asked for after it refused a follower's fetch offset as out of range. */
export interface LeaderLogBounds {
  readonly logStartOffset: number
  readonly logEndOffset: number
}

export async function leaderLogBounds(
  replica: Replica,
  leaderId: number,
  context: ReplicaFetcherContext,
): Promise<LeaderLogBounds> {
  const logEndOffset = await requestLeaderOffset(replica.tableBucket, leaderId, context, OffsetType.LATEST)
  const logStartOffset = await requestLeaderOffset(
    replica.tableBucket,
    leaderId,
    context,
    OffsetType.EARLIEST,
  )
  return { logStartOffset, logEndOffset }
}

/**
 * The leader refused the follower's fetch offset (its log end offset) as out of range. Either the
 * follower holds more than the leader (a tail the epoch reconciliation did not cut, e.g. the
 * leader's log was replaced): truncate to the leader's log end; or it fell behind the leader's log
 * start (retention): restart the log at the leader's log start offset, forgetting its epoch
 * history. Either way the caller reconciles the epochs with the leader again before fetching.
 */
export async function handleOutOfRange(
  replica: Replica,
  leader: LeaderLogBounds,
  warn: (message: string) => void,
): Promise<void> {
  const localEnd = replica.logTablet.logEndOffset
  if (leader.logEndOffset < localEnd) {
    warn(`truncating ${replica.name} from ${localEnd} to the leader's log end ${leader.logEndOffset}`)
    await replica.logTablet.truncateTo(leader.logEndOffset)
    replica.epochCache.truncateFromEnd(leader.logEndOffset)
    await replica.epochCache.flush()
    return
  }
  if (leader.logStartOffset > localEnd) {
    warn(`restarting ${replica.name} at the leader's log start ${leader.logStartOffset}`)
    await replica.logTablet.truncateFullyAndStartAt(leader.logStartOffset)
    replica.epochCache.clear()
    await replica.epochCache.flush()
  }
}

/** The leader-epoch questions of `leader-epoch-sync.ts`, asked with LIST_OFFSETS as this follower. */
export function leaderEpochQueries(
  tableBucket: TableBucket,
  leaderId: number,
  context: ReplicaFetcherContext,
): LeaderEpochQueries {
  return {
    endOffsetFor: epoch =>
      requestLeaderOffset(tableBucket, leaderId, context, OffsetType.LEADER_EPOCH_END_OFFSET, epoch),
    nextEpochAfter: epoch =>
      requestLeaderOffset(tableBucket, leaderId, context, OffsetType.NEXT_LEADER_EPOCH, epoch),
  }
}

/** One LIST_OFFSETS to the leader as follower `context.localServerId`; a bucket error is thrown. */
export async function requestLeaderOffset(
  tableBucket: TableBucket,
  leaderId: number,
  context: ReplicaFetcherContext,
  offsetType: number,
  startTimestamp?: number,
): Promise<number> {
  const { tableId, partitionId, bucket } = tableBucket
  const endpoint = await context.leaderEndpoint(leaderId)
  const response = await context.pool.request(
    { ...endpoint, role: 'tablet' },
    'LIST_OFFSETS',
    {
      followerServerId: context.localServerId,
      offsetType,
      tableId,
      partitionId,
      bucketId: [bucket],
      ...(startTimestamp === undefined ? {} : { startTimestamp }),
    },
    { timeoutMs: context.settings.requestTimeoutMs },
  )
  const result = response.bucketsResp.find(b => b.bucketId === bucket)
  if (
    result === undefined ||
    (result.errorCode !== null && result.errorCode !== 0) ||
    result.offset === null
  ) {
    throw FlussError.fromCode(
      result?.errorCode ?? -1,
      result?.errorMessage ?? `no offset for bucket ${bucket}`,
    )
  }
  return result.offset
}
