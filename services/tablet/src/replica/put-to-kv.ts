import { toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { type ForwardedPut, type KeyForwarder, routePut } from '../kv/index.js'
import type { WriteResultForBucket } from './delay/delayed-write.js'
import { awaitReplication, checkRequiredAcks, type ReplicationWaitContext } from './required-acks.js'

/** One bucket's KV batch of a PUT_KV request. */
export interface KvEntry {
  readonly tableBucket: TableBucket
  readonly records: Buffer
}

/** A PUT_KV's parameters beside its buckets: acks, timeout, target columns and merge mode. */
export type PutKvParams = ForwardedPut

/**
 * Puts each bucket's KV batch on its leader replica (buckets in parallel, each serialized by its
 * KvTablet), then answers: at once for acks 0 and 1, or once the high watermark passed every
 * bucket's changelog for acks -1 (Fluss's `putRecordsToKv` + `maybeAddDelayedWrite`). Records whose
 * keys belong to another bucket go there through `forwarder` (without one, the batch is refused).
 */
export async function putRecordsToKv(
  context: ReplicationWaitContext,
  params: PutKvParams,
  entries: readonly KvEntry[],
  forwarder: KeyForwarder | undefined,
): Promise<WriteResultForBucket[]> {
  checkRequiredAcks(params.acks)
  const options = { targetColumns: params.targetColumns, aggMode: params.aggMode }
  const results = await Promise.all(
    entries.map(async ({ tableBucket, records }): Promise<WriteResultForBucket> => {
      try {
        const replica = context.getReplicaOrException(tableBucket)
        const routing = { router: replica.keyRouter, forwarder }
        const route = (batch: Buffer) => routePut(routing, tableBucket, batch, params)
        const put = await replica.putRecordsToLeader(records, params.acks, options, route)
        return { tableBucket, baseOffset: put.firstOffset, writeEndOffset: put.lastOffset + 1 }
      } catch (e) {
        return { tableBucket, error: toFlussError(e) }
      }
    }),
  )
  if (params.acks !== -1) return results
  return awaitReplication(context, params.timeoutMs, results)
}
