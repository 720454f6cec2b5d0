/**
 * What a leader knows about one follower (Fluss's `FollowerReplica` state), updated on each of its
 * fetches:
 * - `logEndOffset`: the fetch offset of its last fetch (it holds everything before), -1 unknown;
 * - `lastFetchLeaderLogEndOffset` / `lastFetchTimeMs`: the leader's log end and the time at that
 *   fetch;
 * - `lastCaughtUpTimeMs`: the latest time t at which the follower had everything the leader had at
 *   t. A follower whose last catch-up is older than `log.replica.max-lag-time` is out of sync: it
 *   is stuck (no fetches) or too slow (its fetches never reach the leader's end). Using the
 *   previous fetch's leader end lets a follower count as caught up even while small appends keep
 *   the leader's end moving just ahead of every fetch.
 * - `epochConfirmed`: the follower has learned where this leader's epoch starts (see
 *   `leader-epoch-sync.ts`); until then it is served nothing written in the current epoch.
 */
export class FollowerState {
  logEndOffset = -1
  lastFetchLeaderLogEndOffset = -1
  lastFetchTimeMs = 0
  lastCaughtUpTimeMs = 0
  epochConfirmed = false

  constructor(readonly followerId: number) {}

  /** Records a fetch at `fetchOffset` received at `nowMs` while the leader's log ended at `leaderLogEndOffset`. */
  updateFetchState(fetchOffset: number, nowMs: number, leaderLogEndOffset: number): void {
    if (fetchOffset >= leaderLogEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, nowMs)
    } else if (fetchOffset >= this.lastFetchLeaderLogEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.lastFetchTimeMs)
    }
    this.logEndOffset = fetchOffset
    this.lastFetchLeaderLogEndOffset = Math.max(leaderLogEndOffset, this.lastFetchLeaderLogEndOffset)
    this.lastFetchTimeMs = nowMs
  }

  /**
   * A new leadership (or a new epoch of it): the follower's log end is unknown until it fetches;
   * an ISR member counts as caught up now, so it is not dropped before it had a chance to fetch,
   * while one outside the ISR does not hold the high watermark back.
   */
  reset(nowMs: number, inSync: boolean): void {
    this.logEndOffset = -1
    this.lastFetchLeaderLogEndOffset = -1
    this.lastFetchTimeMs = 0
    this.lastCaughtUpTimeMs = inSync ? nowMs : 0
    this.epochConfirmed = false
  }

  /** In sync: it has the leader's whole log, or caught up within the last `maxLagMs`. */
  isCaughtUp(leaderLogEndOffset: number, nowMs: number, maxLagMs: number): boolean {
    return this.logEndOffset === leaderLogEndOffset || nowMs - this.lastCaughtUpTimeMs <= maxLagMs
  }
}
