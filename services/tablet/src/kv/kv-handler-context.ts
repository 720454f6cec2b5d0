import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucketToString } from '@sluice/core/metadata'
import type { LogReadParams, LogReadResult } from '../log/log-tablet-types.js'
import type { KeyForwarder } from './key-forwarding.js'
import type { KeyRouter } from './key-routing.js'
import type { KvTablet } from './kv-tablet.js'

/**
 * The PUT_KV, LOOKUP, PREFIX_LOOKUP and LIMIT_SCAN handlers (Fluss's `TabletService` +
 * `ReplicaManager` + `Replica` parts of them): request in, response out, per-bucket errors in the
 * response. Replicas are reached through `KvRequestContext`, which the tablet server implements.
 */

/** One bucket replica as the KV handlers need it. */
export interface KvReplica {
  /** True for primary-key tables. */
  readonly isPrimaryKeyTable: boolean
  readonly isLeader: boolean
  /** The bucket's KvTablet: present on the leader of a primary-key bucket once it is open. */
  readonly kvTablet: KvTablet | null
  /** The bucket's log (LIMIT_SCAN on log tables reads its tail). */
  readonly logTablet: {
    readonly highWatermark: number
    readonly logStartOffset: number
    read(params: LogReadParams): Promise<LogReadResult>
  }
  /** acks=-1 with fewer in-sync replicas than the minimum: NOT_ENOUGH_REPLICAS_EXCEPTION. */
  checkInSyncReplicas(requiredAcks: number): void
  /** After a put: flush the KvTablet to the new high-watermark candidate and move the high watermark. */
  maybeIncrementLeaderHighWatermark(): Promise<unknown>
  /** Which bucket each key belongs to; absent: keys are not checked. */
  readonly keyRouter?: KeyRouter
}

/** One bucket's put outcome (the shape of the replica layer's WriteResultForBucket). */
export interface KvWriteResult {
  readonly tableBucket: TableBucket
  readonly error?: FlussError
  readonly baseOffset?: number
  /** Offset after the changelog batch: acks=-1 waits until the high watermark reaches it. */
  readonly writeEndOffset?: number
}

export interface KvRequestContext {
  /** This tablet server's id (in NOT_LEADER_OR_FOLLOWER messages). */
  readonly serverId: number
  /** The local replica of a bucket; throws (e.g. UNKNOWN_TABLE_OR_BUCKET_EXCEPTION) when there is none. */
  getReplica(bucket: TableBucket): KvReplica
  /**
   * acks=-1: resolves once the high watermark reached every successful bucket's `writeEndOffset`,
   * with REQUEST_TIME_OUT (or the replica's error) for buckets that did not in `timeoutMs`.
   */
  awaitReplication(timeoutMs: number, results: readonly KvWriteResult[]): Promise<readonly KvWriteResult[]>
  /** True while this server must refuse writes (e.g. its membership lease lapsed). */
  writesFenced?(): boolean
  /** Most bytes a LIMIT_SCAN of a log table returns (whole batches, at least one). */
  readonly limitScanMaxBytes: number
  /** Serves keys sent to the wrong bucket in their own bucket; absent: they are refused (MISROUTED_KEY). */
  readonly forwarder?: KeyForwarder
}

export function errorFields(e: unknown): { errorCode: number; errorMessage: string } {
  const error = toFlussError(e)
  return { errorCode: error.wireCode, errorMessage: error.message }
}

export function notLeader(bucket: TableBucket, serverId: number): FlussError {
  return new FlussError(
    'NOT_LEADER_OR_FOLLOWER',
    `Leader not local for bucket ${tableBucketToString(bucket)} on tabletServer ${serverId}`,
  )
}

/** The leader's KvTablet of a primary-key bucket, or Fluss's error. */
export function leaderKv(
  ctx: KvRequestContext,
  bucket: TableBucket,
  notPrimaryKey = `the primary key table not exists for ${tableBucketToString(bucket)}`,
): { replica: KvReplica; kv: KvTablet } {
  const replica = ctx.getReplica(bucket)
  if (!replica.isPrimaryKeyTable) throw new FlussError('NON_PRIMARY_KEY_TABLE_EXCEPTION', notPrimaryKey)
  if (!replica.isLeader || replica.kvTablet === null || replica.kvTablet.isClosed)
    throw notLeader(bucket, ctx.serverId)
  return { replica, kv: replica.kvTablet }
}

/** Fluss accepts acks 0, 1 and -1 (all). */
export function checkRequiredAcks(acks: number): void {
  if (acks !== 0 && acks !== 1 && acks !== -1) {
    throw new FlussError('INVALID_REQUIRED_ACKS', `Invalid required acks: ${acks}`)
  }
}
