import { FlussError } from '@sluice/core/errors'
import type { LogTablet } from '../log/index.js'
import { type LeaderEpochCache, UNDEFINED_EPOCH_OFFSET } from './leader-epoch-cache.js'
import { type ListOffsetsParam, NO_EPOCH_HISTORY, OffsetType } from './replica-types.js'

/** What LIST_OFFSETS reads from a leader replica. */
export interface OffsetSource {
  readonly name: string
  readonly logTablet: LogTablet
  readonly epochCache: LeaderEpochCache
  /** The leader's log end offset when it took its current epoch. */
  readonly epochStartOffset: number
  readonly leaderEpoch: number
  /** A follower asked for the epochs after `epoch`: it has learned them all when `epoch` is current. */
  onFollowerEpochQuery(followerId: number, epoch: number): void
}

/**
 * LIST_OFFSETS on the leader: earliest, latest (the high watermark for clients, the log end for
 * followers), by commit timestamp, the log end at the start of the leader's epoch, and (followers
 * only) the leader-epoch queries a follower uses to find where its log diverges and to learn which
 * epoch wrote the offsets it is about to fetch (`leader-epoch-sync.ts`).
 */
export async function leaderOffset(source: OffsetSource, param: ListOffsetsParam): Promise<number> {
  const log = source.logTablet
  const fromClient = param.followerServerId < 0
  const latest = fromClient ? log.highWatermark : log.logEndOffset
  switch (param.offsetType) {
    case OffsetType.EARLIEST:
      return log.logStartOffset
    case OffsetType.LATEST:
      return latest
    case OffsetType.TIMESTAMP: {
      if (param.startTimestamp === null) {
        throw new FlussError('INVALID_REQUEST', 'startTimestamp is required to list offsets by timestamp')
      }
      return Math.min(await log.offsetForTimestamp(param.startTimestamp), latest)
    }
    case OffsetType.LEADER_END_OFFSET_SNAPSHOT:
      return source.epochStartOffset
    case OffsetType.LEADER_EPOCH_END_OFFSET:
      return epochEndOffset(source, followerEpoch(param))
    case OffsetType.NEXT_LEADER_EPOCH: {
      const epoch = followerEpoch(param)
      source.onFollowerEpochQuery(param.followerServerId, epoch)
      return source.epochCache.nextEpochAfter(epoch)
    }
    default:
      throw new FlussError('INVALID_REQUEST', `invalid list offsets type ${param.offsetType}`)
  }
}

function epochEndOffset(source: OffsetSource, epoch: number): number {
  const cache = source.epochCache
  const end = cache.endOffsetFor(epoch, source.logTablet.logEndOffset)
  if (end !== UNDEFINED_EPOCH_OFFSET) return end
  const holdsOlder = cache.entries.some(e => e.epoch < epoch)
  return holdsOlder ? UNDEFINED_EPOCH_OFFSET : NO_EPOCH_HISTORY
}

function followerEpoch(param: ListOffsetsParam): number {
  const epoch = param.startTimestamp
  if (param.followerServerId < 0) {
    throw new FlussError(
      'INVALID_REQUEST',
      `list offsets type ${param.offsetType} is for follower replicas only`,
    )
  }
  if (epoch === null || !Number.isSafeInteger(epoch) || epoch < -1) {
    throw new FlussError('INVALID_REQUEST', `a leader epoch is required in startTimestamp, got ${epoch}`)
  }
  return epoch
}
