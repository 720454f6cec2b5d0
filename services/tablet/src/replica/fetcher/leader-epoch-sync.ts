import { FlussError } from '@sluice/core/errors'
import { type EpochEntry, type LeaderEpochCache, UNDEFINED_EPOCH_OFFSET } from '../leader-epoch-cache.js'
import { NO_EPOCH_HISTORY } from '../replica-types.js'

/** The leader-epoch questions a follower asks its leader (LIST_OFFSETS types 1000 and 1001). */
export interface LeaderEpochQueries {
  /** Where `epoch` ends in the leader's log; -1 when it holds no such epoch, -2 when none at or below it. */
  endOffsetFor(epoch: number): Promise<number>
  /** The leader's next epoch after `epoch` (-1 asks for its first), -1 when none. */
  nextEpochAfter(epoch: number): Promise<number>
}

/** The part of a follower's log the reconciliation touches. */
export interface ReconciledLog {
  readonly logStartOffset: number
  readonly logEndOffset: number
  readonly highWatermark: number
  truncateTo(offset: number): Promise<boolean>
}

export interface EpochSyncResult {
  /** Where the log was cut, or null when nothing was cut. */
  readonly truncatedTo: number | null
  /** The newest epoch the leader holds, now also the newest in the follower's cache. */
  readonly leaderEpoch: number
}

/** What reconciling will do, decided from the leader's answers alone (nothing local changed yet). */
export interface EpochSyncPlan {
  /** The log end the plan was made for: the log must not have changed when it is applied. */
  readonly logEndOffset: number
  /** Cut the log here, or null to keep it. */
  readonly truncateTo: number | null
  /** The leader's epochs to record, with where they start in this follower's log. */
  readonly learned: readonly EpochEntry[]
  readonly leaderEpoch: number
}

/** Bound on question rounds (each epoch between the follower's and the leader's costs two). */
const MAX_ROUNDS = 10_000

/**
 * Reconciles a follower's log with its new leader before it fetches (what Kafka does with
 * OffsetsForLeaderEpoch; Fluss 0.9.1 truncates to the high watermark instead, which can drop
 * acknowledged records that only this replica still has):
 * 1. Find the divergence point: for the follower's epochs, newest first, ask where the leader's
 *    copy of that epoch ends. An epoch the leader does not hold diverges entirely (cut at its
 *    start, try the older one); the first one it holds matches up to min(its end here, its end on
 *    the leader). A leader with no history at or below an epoch falls back to the high watermark.
 *    A follower without any epoch history (logs from before the cache existed) also falls back to
 *    the high watermark.
 * 2. Cut the log there (nothing is cut when the logs agree).
 * 3. Learn the leader's epochs after the matching one, with their start offsets, so every record
 *    fetched next is attributed to the epoch that wrote it; the last question tells the leader that
 *    this follower now knows its current epoch (until then it serves only older records).
 * A leader that has not yet taken `notifiedEpoch` is asked again later (retriable error). Steps 1
 * and 3 only ask (`planSync`); step 2 and the recording happen together in `applySync`, so a caller
 * can ask without holding the replica and apply only if it is still the replica's follower task.
 */
export async function syncWithLeader(
  log: ReconciledLog,
  cache: LeaderEpochCache,
  leader: LeaderEpochQueries,
  notifiedEpoch: number,
): Promise<EpochSyncResult> {
  return applySync(log, cache, await planSync(log, cache, leader, notifiedEpoch))
}

/** Asks the leader and decides (see `syncWithLeader`); changes nothing locally. */
export async function planSync(
  log: ReconciledLog,
  cache: LeaderEpochCache,
  leader: LeaderEpochQueries,
  notifiedEpoch: number,
): Promise<EpochSyncPlan> {
  const entries = cache.entriesBefore(log.logEndOffset + 1)
  const { target, matched } = await divergencePoint(log, entries, leader)
  const cut = Math.max(target, log.logStartOffset)
  const endAfterCut = Math.min(cut, log.logEndOffset)
  const { learned, leaderEpoch } = await learnEpochs(leader, matched, endAfterCut)
  if (leaderEpoch < notifiedEpoch) {
    throw new FlussError(
      'LEADER_NOT_AVAILABLE_EXCEPTION',
      `the leader holds epoch ${leaderEpoch} and has not taken epoch ${notifiedEpoch} yet`,
    )
  }
  return {
    logEndOffset: log.logEndOffset,
    truncateTo: cut < log.logEndOffset ? cut : null,
    learned,
    leaderEpoch,
  }
}

/**
 * Cuts the log and records the learned epochs (on disk before the follower fetches). A log that
 * changed since the plan was made (a late append) is not touched: plan again (retriable error).
 */
export async function applySync(
  log: ReconciledLog,
  cache: LeaderEpochCache,
  plan: EpochSyncPlan,
): Promise<EpochSyncResult> {
  if (log.logEndOffset !== plan.logEndOffset) {
    throw new FlussError(
      'LEADER_NOT_AVAILABLE_EXCEPTION',
      `the log end moved from ${plan.logEndOffset} to ${log.logEndOffset} while reconciling with the leader`,
    )
  }
  cache.truncateFromEnd(log.logEndOffset + 1)
  if (plan.truncateTo !== null) {
    await log.truncateTo(plan.truncateTo)
    cache.truncateFromEnd(plan.truncateTo)
  }
  for (const e of plan.learned) cache.assign(e.epoch, e.startOffset)
  await cache.flush()
  return { truncatedTo: plan.truncateTo, leaderEpoch: plan.leaderEpoch }
}

async function divergencePoint(
  log: ReconciledLog,
  entries: readonly EpochEntry[],
  leader: LeaderEpochQueries,
): Promise<{ target: number; matched: number }> {
  if (entries.length === 0) return { target: Math.min(log.logEndOffset, log.highWatermark), matched: -1 }
  let target = log.logEndOffset
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    const followerEnd = i === 0 ? log.logEndOffset : entries[i - 1].startOffset
    const leaderEnd = await leader.endOffsetFor(entry.epoch)
    if (leaderEnd === NO_EPOCH_HISTORY)
      return { target: Math.min(followerEnd, log.highWatermark), matched: -1 }
    if (leaderEnd === UNDEFINED_EPOCH_OFFSET) {
      target = entry.startOffset
      continue
    }
    return { target: Math.min(followerEnd, leaderEnd), matched: entry.epoch }
  }
  return { target, matched: -1 }
}

/**
 * The leader's epochs after `from`, with their start offsets. With `from` -1 (no verified common
 * epoch) the first one is the leader's epoch holding `logEndOffset`, starting there. Also returns
 * the leader's newest epoch.
 */
async function learnEpochs(
  leader: LeaderEpochQueries,
  from: number,
  logEndOffset: number,
): Promise<{ learned: EpochEntry[]; leaderEpoch: number }> {
  const learned: EpochEntry[] = []
  let epoch = from
  let anchored = from >= 0
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = await leader.nextEpochAfter(epoch)
    if (next < 0) {
      if (!anchored && epoch >= 0) learned.push({ epoch, startOffset: logEndOffset })
      return { learned, leaderEpoch: epoch }
    }
    if (next <= epoch) throw changedUnderUs(epoch)
    if (anchored) {
      const start = await leader.endOffsetFor(epoch)
      if (start < 0) throw changedUnderUs(epoch)
      learned.push({ epoch: next, startOffset: Math.max(start, logEndOffset) })
    } else if ((await leader.endOffsetFor(next)) > logEndOffset) {
      learned.push({ epoch: next, startOffset: logEndOffset })
      anchored = true
    }
    epoch = next
  }
  throw new FlussError('LOG_STORAGE_EXCEPTION', `more than ${MAX_ROUNDS} leader epochs to learn`)
}

function changedUnderUs(epoch: number): FlussError {
  return new FlussError(
    'LEADER_NOT_AVAILABLE_EXCEPTION',
    `the leader's epoch history changed while it was read (at epoch ${epoch})`,
  )
}
