import { toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { WriteResultForBucket } from './delay/delayed-write.js'
import { validateProduceRecords } from './produce-validation.js'
import { awaitReplication, checkRequiredAcks, type ReplicationWaitContext } from './required-acks.js'

/** One bucket's records of a PRODUCE_LOG request. */
export interface ProduceEntry {
  readonly tableBucket: TableBucket
  readonly records: Uint8Array
}

/**
 * Appends each bucket's records on its leader replica (buckets in parallel, each serialized by its
 * log), then answers: at once for acks 0 and 1, or once the high watermark passed every appended
 * bucket for acks -1 (Fluss's `appendRecordsToLog` + `maybeAddDelayedWrite`).
 */
export async function appendRecordsToLog(
  context: ReplicationWaitContext,
  timeoutMs: number,
  requiredAcks: number,
  entries: readonly ProduceEntry[],
): Promise<WriteResultForBucket[]> {
  checkRequiredAcks(requiredAcks)
  const results = await Promise.all(entries.map(e => appendToLocalLog(context, e, requiredAcks)))
  if (requiredAcks !== -1) return results
  return awaitReplication(context, timeoutMs, results)
}

async function appendToLocalLog(
  context: ReplicationWaitContext,
  entry: ProduceEntry,
  requiredAcks: number,
): Promise<WriteResultForBucket> {
  try {
    const replica = context.getReplicaOrException(entry.tableBucket)
    replica.checkLeader()
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
