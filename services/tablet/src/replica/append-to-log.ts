import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { tableBucketKey } from '@sluice/core/metadata'
import type { DelayedOperationManager } from './delay/delayed-operation-manager.js'
import { DelayedWrite, type WriteResultForBucket } from './delay/delayed-write.js'
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
    throw new FlussError('INVALID_REQUIRED_ACKS', `invalid required acks ${acks}, expected 0, 1 or -1`)
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
  const anySucceeded = results.some(r => r.error === undefined)
  if (requiredAcks !== -1 || !anySucceeded) return results
  if (!context.delayedWrites.hasRoom) {
    const error = new FlussError(
      'REQUEST_TIME_OUT',
      `${context.delayedWrites.watched} acks=all writes are already waiting for replication`,
    )
    return results.map(r => (r.error === undefined ? { tableBucket: r.tableBucket, error } : r))
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
    const info = await replica.appendRecordsToLeader(entry.records, requiredAcks)
    return {
      tableBucket: entry.tableBucket,
      baseOffset: info.firstOffset,
      writeEndOffset: info.lastOffset + 1,
    }
  } catch (e) {
    return { tableBucket: entry.tableBucket, error: toFlussError(e) }
  }
}
