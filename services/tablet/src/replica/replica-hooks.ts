import type { Replica } from './replica.js'
import type { IsrUpdateOutcome } from './replica-isr-writes.js'

/**
 * Where other bucket components plug into a replica's leadership (the remote log task; the
 * replica's own KvTablet is not one of them). Every hook is optional.
 */
export interface ReplicaHooks {
  /**
   * The replica became leader at a new leader epoch. It takes writes (and lookups) only once the
   * returned promise resolves and, for a primary-key bucket, its KvTablet opened after it (it may
   * read what the hook prepared, e.g. remote segments). A rejection keeps the replica refusing
   * writes with that error until the next leadership change.
   */
  onBecomeLeader?(replica: Replica): Promise<void>
  /**
   * The replica stopped leading (became follower, was stopped or found itself deposed), or became
   * follower at a new leader epoch.
   */
  onBecomeFollower?(replica: Replica): Promise<void>
  /** After the leader's or follower's high watermark moved (e.g. remote log upload may proceed). */
  onHighWatermarkAdvanced?(replica: Replica, highWatermark: number): void
  /**
   * STOP_REPLICA took the replica (after its leadership hooks ran): with `deleteLocal` its local
   * data beside the log is to be removed, with `deleteRemote` its remote data too.
   */
  onReplicaStopped?(replica: Replica, deleteLocal: boolean, deleteRemote: boolean): Promise<void>
  /** A leader's ISR change committed (`shrink`, `expand`) or its write failed (metrics). */
  onIsrUpdate?(replica: Replica, outcome: IsrUpdateOutcome): void
}

/**
 * Where a replica reports what it does in the background; `fields` are the structured context of
 * the line (`table`, `bucket`, `leaderEpoch`, ...).
 */
export type ReplicaWarn = (
  message: string,
  error?: unknown,
  fields?: Readonly<Record<string, unknown>>,
) => void
