import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey } from '@sluice/core/metadata'
import type { DelayedOperationManager } from './delay/delayed-operation-manager.js'
import { DelayedWrite, type WriteResultForBucket } from './delay/delayed-write.js'
import { validateProduceRecords } from './produce-validation.js'
import type { Replica } from './replica.js'

/** One bucket's records of a PRODUCE_LOG request. */
export interface ProduceEntry {
  readonly tableBucket: TableBucket
  readonly records: Uint8Array
}

export interface AppendContext {
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
 * Appends each bucket's records on its leader replica (buckets in parallel, each serialized by its
 * log), then answers: at once for acks 0 and 1, or once the high watermark passed every appended
 * bucket for acks -1 (Fluss's `appendRecordsToLog` + `maybeAddDelayedWrite`).
 */
export async function appendRecordsToLog(
  context: AppendContext,
  timeoutMs: number,
  requiredAcks: number,
  entries: readonly ProduceEntry[],
): Promise<WriteResultForBucket[]> {
  checkRequiredAcks(requiredAcks)
  const results = await Promise.all(entries.map(e => appendToLocalLog(context, e, requiredAcks)))
  if (requiredAcks !== -1) return results
  return awaitReplication(context, timeoutMs, results)
}

/**
 * acks=all: resolves once the high watermark passed every successful bucket's `writeEndOffset`
 * (REQUEST_TIME_OUT for the buckets that did not within `timeoutMs`, NOT_LEADER_OR_FOLLOWER for
 * buckets whose replica stopped leading). Used by produce and by PUT_KV.
 */
export function awaitReplication(
  context: AppendContext,
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

async function appendToLocalLog(
  context: AppendContext,
  entry: ProduceEntry,
  requiredAcks: number,
): Promise<WriteResultForBucket> {
  try {
    const replica = context.getReplicaOrException(entry.tableBucket)
    if (!replica.isLeader) throw notLeader(replica)
    const records = await validateProduceRecords(replica, entry.records)
    const info = await replica.appendRecordsToLeader(records, requiredAcks)
    return {
      tableBucket: entry.tableBucket,
      baseOffset: info.firstOffset,
      writeEndOffset: info.lastOffset + 1,
    }
  } catch (e) {
    return { tableBucket: entry.tableBucket, error: toFlussError(e) }
  }
}

function notLeader(replica: Replica): FlussError {
  return new FlussError(
    'NOT_LEADER_OR_FOLLOWER',
    `Leader not local for bucket ${replica.name} on tabletServer ${replica.localServerId}`,
  )
}
