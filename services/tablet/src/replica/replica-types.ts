import type { LeaderAndIsr } from '@sluice/core/control-plane'
import type { FlussError } from '@sluice/core/errors'
import type { PhysicalTablePath, TableBucket } from '@sluice/core/metadata'

/** One bucket of a NOTIFY_LEADER_AND_ISR request (Fluss's `NotifyLeaderAndIsrData`). */
export interface NotifyLeaderAndIsrData {
  readonly physicalTablePath: PhysicalTablePath
  readonly tableBucket: TableBucket
  readonly leader: number
  readonly leaderEpoch: number
  readonly replicas: readonly number[]
  readonly isr: readonly number[]
  readonly bucketEpoch: number
  readonly coordinatorEpoch: number
}

/** One bucket of a STOP_REPLICA request. */
export interface StopReplicaData {
  readonly tableBucket: TableBucket
  readonly leaderEpoch: number
  readonly deleteLocal: boolean
  readonly deleteRemote: boolean
}

/** A per-bucket outcome: `error` undefined means success. */
export interface BucketResult<T = undefined> {
  readonly tableBucket: TableBucket
  readonly error?: FlussError
  readonly value?: T
}

/** LIST_OFFSETS offset types (Fluss's `ListOffsetsParam`). */
export const OffsetType = {
  EARLIEST: 0,
  LATEST: 1,
  TIMESTAMP: 2,
  /** Fluss's LEADER_END_OFFSET_SNAPSHOT: the leader's log end when it took its current epoch. */
  LEADER_END_OFFSET_SNAPSHOT: 3,
  /**
   * Sluice-internal, followers only (`startTimestamp` = a leader epoch): where that epoch ends in
   * the leader's log, UNDEFINED_EPOCH_OFFSET (-1) when the leader holds no such epoch, or
   * NO_EPOCH_HISTORY (-2) when it holds no epoch at or below it.
   */
  LEADER_EPOCH_END_OFFSET: 1000,
  /** Sluice-internal, followers only: the leader's next epoch after `startTimestamp`, -1 when none. */
  NEXT_LEADER_EPOCH: 1001,
} as const

/** LEADER_EPOCH_END_OFFSET answer when the leader has no epoch at or below the one asked about. */
export const NO_EPOCH_HISTORY = -2

export interface ListOffsetsParam {
  /** -1 for clients; a follower id reads the log end rather than the high watermark. */
  readonly followerServerId: number
  readonly offsetType: number
  readonly startTimestamp: number | null
}

/** Client fetches use -1; FetchLog's `fetch_offset` -2 means "from the log start offset". */
export const CLIENT_REPLICA_ID = -1
export const FETCH_FROM_EARLIEST_OFFSET = -2

/** A leader's proposed ISR change (Fluss's `AdjustIsr` data for one bucket). */
export interface IsrProposal {
  readonly tableBucket: TableBucket
  readonly leader: number
  readonly leaderEpoch: number
  /** The bucket epoch the change is based on. */
  readonly bucketEpoch: number
  readonly isr: readonly number[]
}

/**
 * The outcome of an ISR write: `committed` (the stored state now), `stale` (same leader and epoch,
 * but the bucket changed meanwhile, e.g. the coordinator removed a dead follower: adopt it), or
 * `deposed` (another leader or a newer leader epoch is stored: stop acting as leader).
 */
export type AdjustIsrResult =
  | { readonly kind: 'committed'; readonly leaderAndIsr: LeaderAndIsr }
  | { readonly kind: 'stale'; readonly leaderAndIsr: LeaderAndIsr }
  | { readonly kind: 'deposed'; readonly leaderAndIsr: LeaderAndIsr }

/** Writes a leader's ISR change to the control plane, conditioned on leader, leader epoch and version. */
export interface IsrWriter {
  adjustIsr(proposal: IsrProposal): Promise<AdjustIsrResult>
}
