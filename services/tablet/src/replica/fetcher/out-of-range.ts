import { FlussError } from '@sluice/core/errors'
import type { Replica } from '../replica.js'
import { OffsetType } from '../replica-types.js'
import type { ReplicaFetcherContext } from './replica-fetcher.js'

/**
 * The leader refused the follower's fetch offset (its log end offset) as out of range. Either the
 * follower holds more than the leader (a deposed leader's unreplicated tail): truncate to the
 * leader's log end; or it fell behind the leader's log start (retention): restart the log at the
 * leader's log start offset. Otherwise keep the log and fetch again.
 */
export async function handleOutOfRange(
  replica: Replica,
  leaderId: number,
  context: ReplicaFetcherContext,
): Promise<void> {
  const localEnd = replica.logTablet.logEndOffset
  const leaderEnd = await leaderOffset(replica, leaderId, context, OffsetType.LATEST)
  if (leaderEnd < localEnd) {
    context.warn(`truncating ${replica.name} from ${localEnd} to leader ${leaderId}'s log end ${leaderEnd}`)
    await replica.logTablet.truncateTo(leaderEnd)
    return
  }
  const leaderStart = await leaderOffset(replica, leaderId, context, OffsetType.EARLIEST)
  if (leaderStart > localEnd) {
    context.warn(`restarting ${replica.name} at leader ${leaderId}'s log start ${leaderStart}`)
    await replica.logTablet.truncateFullyAndStartAt(leaderStart)
  }
}

async function leaderOffset(
  replica: Replica,
  leaderId: number,
  context: ReplicaFetcherContext,
  offsetType: number,
): Promise<number> {
  const { tableId, partitionId, bucket } = replica.tableBucket
  const endpoint = await context.leaderEndpoint(leaderId)
  const response = await context.pool.request({ ...endpoint, role: 'tablet' }, 'LIST_OFFSETS', {
    followerServerId: context.localServerId,
    offsetType,
    tableId,
    partitionId,
    bucketId: [bucket],
  })
  const result = response.bucketsResp.find(b => b.bucketId === bucket)
  if (
    result === undefined ||
    (result.errorCode !== null && result.errorCode !== 0) ||
    result.offset === null
  ) {
    throw FlussError.fromCode(
      result?.errorCode ?? -1,
      result?.errorMessage ?? `no offset for ${replica.name}`,
    )
  }
  return result.offset
}
