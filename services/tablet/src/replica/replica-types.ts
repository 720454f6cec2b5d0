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
} as const

export interface ListOffsetsParam {
  /** -1 for clients; a follower id reads the log end rather than the high watermark. */
  readonly followerServerId: number
  readonly offsetType: number
  readonly startTimestamp: number | null
}

/** Client fetches use -1; FetchLog's `fetch_offset` -2 means "from the log start offset". */
export const CLIENT_REPLICA_ID = -1
export const FETCH_FROM_EARLIEST_OFFSET = -2
