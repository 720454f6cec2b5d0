import { FlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { DelayedOperationManager } from './delay/delayed-operation-manager.js'
import { DelayedWrite, type WriteResultForBucket } from './delay/delayed-write.js'
import type { Replica } from './replica.js'

/** Where acks=all writes wait for replication. */
export interface ReplicationWaitContext {
  getReplicaOrException(bucket: TableBucket): Replica
  readonly delayedWrites: DelayedOperationManager<DelayedWrite>
}

/** Fluss accepts exactly these `acks`: none, the leader, all in-sync replicas. */
export function checkRequiredAcks(acks: number): void {
  if (acks !== 0 && acks !== 1 && acks !== -1) {
    throw new FlussError('INVALID_REQUIRED_ACKS', `Invalid required acks: ${acks}`)
  }
}

/**
 * acks=all: resolves once the high watermark passed every successful bucket's `writeEndOffset`
 * (REQUEST_TIME_OUT for the buckets that did not within `timeoutMs`, NOT_LEADER_OR_FOLLOWER for
 * buckets whose replica stopped leading). Used by produce, PUT_KV and insert-if-not-exists lookups.
 */
export function awaitReplication(
  context: ReplicationWaitContext,
  timeoutMs: number,
  results: readonly WriteResultForBucket[],
): Promise<WriteResultForBucket[]> {
  if (!results.some(r => r.error === undefined)) return Promise.resolve([...results])
  if (!context.delayedWrites.hasRoom) {
    const error = new FlussError(
      'REQUEST_TIME_OUT',
      `${context.delayedWrites.watched} acks=all writes are already waiting for replication`,
    )
    return Promise.resolve(
      results.map(r => (r.error === undefined ? { tableBucket: r.tableBucket, error } : r)),
    )
  }
  return new Promise(resolve => {
    const op = new DelayedWrite(
      Math.max(0, timeoutMs),
      results,
      b => context.getReplicaOrException(b),
      resolve,
    )
    context.delayedWrites.tryCompleteElseWatch(
      op,
      results.map(r => tableBucketKey(r.tableBucket)),
    )
  })
}
