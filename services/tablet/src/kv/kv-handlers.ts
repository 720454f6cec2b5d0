import { FlussError, toFlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucket, tableBucketKey } from '@sluice/core/metadata'
import type {
  LookupRequest,
  LookupResponseInit,
  PbLookupRespForBucketInit,
  PutKvRequest,
  PutKvResponseInit,
} from '@sluice/core/rpc'
import { routePut, routeReads } from './key-forwarding.js'
import {
  checkRequiredAcks,
  errorFields,
  type KvRequestContext,
  type KvWriteResult,
  leaderKv,
} from './kv-handler-context.js'

/** PUT_KV: each bucket's batch merged on its leader (buckets in parallel), then acks awaited. */
export async function handlePutKv(request: PutKvRequest, ctx: KvRequestContext): Promise<PutKvResponseInit> {
  checkRequiredAcks(request.acks)
  const entries = new Map<string, { bucket: TableBucket; records: Buffer }>()
  for (const b of request.bucketsReq) {
    const bucket = tableBucket(request.tableId, b.bucketId, b.partitionId ?? undefined)
    entries.set(tableBucketKey(bucket), { bucket, records: b.records })
  }
  const options = { targetColumns: request.targetColumns, aggMode: request.aggMode }
  let results: readonly KvWriteResult[] = await Promise.all(
    [...entries.values()].map(async ({ bucket, records }): Promise<KvWriteResult> => {
      try {
        if (ctx.writesFenced?.())
          throw new FlussError('NOT_LEADER_OR_FOLLOWER', 'this tablet server lost its membership lease')
        const { replica, kv } = leaderKv(ctx, bucket)
        replica.checkInSyncReplicas(request.acks)
        const own = await routePut(ctx, replica, bucket, records, request)
        const put = await kv.putAsLeader(own, options)
        await replica.maybeIncrementLeaderHighWatermark()
        return { tableBucket: bucket, baseOffset: put.firstOffset, writeEndOffset: put.lastOffset + 1 }
      } catch (e) {
        return { tableBucket: bucket, error: toFlussError(e) }
      }
    }),
  )
  if (request.acks === -1 && results.some(r => r.error === undefined)) {
    results = await ctx.awaitReplication(request.timeoutMs, results)
  }
  return {
    bucketsResp: results.map(r => ({
      partitionId: r.tableBucket.partitionId ?? null,
      bucketId: r.tableBucket.bucket,
      ...(r.error === undefined ? { logEndOffset: r.writeEndOffset ?? null } : errorFields(r.error)),
    })),
  }
}

/** LOOKUP: values of the keys, from RocksDB (absent = not found); optionally inserting missing keys. */
export async function handleLookup(
  request: LookupRequest,
  ctx: KvRequestContext,
): Promise<LookupResponseInit> {
  const buckets = request.bucketsReq
  const pending: Promise<PbLookupRespForBucketInit>[] = new Array(buckets.length)
  // Every bucket's read goes out before the first is awaited: the reads run in parallel.
  for (let i = 0; i < buckets.length; i++) pending[i] = lookupBucket(request, ctx, buckets[i])
  return { bucketsResp: await Promise.all(pending) }
}

async function lookupBucket(
  request: LookupRequest,
  ctx: KvRequestContext,
  b: LookupRequest['bucketsReq'][number],
): Promise<PbLookupRespForBucketInit> {
  const bucket = tableBucket(request.tableId, b.bucketId, b.partitionId ?? undefined)
  try {
    const { replica, kv } = leaderKv(ctx, bucket)
    const lookupHere = async (keys: readonly Buffer[]) => {
      const found = await kv.lookup(keys)
      return request.insertIfNotExists === true ? insertMissing(request, ctx, bucket, keys, found) : found
    }
    const values = await routeReads(ctx, replica, bucket, b.keys, 'LOOKUP', lookupHere, (f, target, keys) =>
      f.lookup(target, keys, request),
    )
    const pbValues = new Array<{ values: Buffer | null }>(values.length)
    for (let i = 0; i < values.length; i++) pbValues[i] = { values: values[i] }
    return { partitionId: b.partitionId, bucketId: b.bucketId, values: pbValues }
  } catch (e) {
    return { partitionId: b.partitionId, bucketId: b.bucketId, ...errorFields(e) }
  }
}

/** Inserts the missing keys (waiting for acks like a put), then reads them again. */
async function insertMissing(
  request: LookupRequest,
  ctx: KvRequestContext,
  bucket: TableBucket,
  keys: readonly Buffer[],
  values: (Buffer | null)[],
): Promise<(Buffer | null)[]> {
  const missing = keys.filter((_, i) => values[i] === null)
  if (missing.length === 0) return values
  const acks = request.acks ?? -1
  checkRequiredAcks(acks)
  const { replica, kv } = leaderKv(ctx, bucket)
  replica.checkInSyncReplicas(acks)
  const put = await kv.insertIfNotExists(missing)
  await replica.maybeIncrementLeaderHighWatermark()
  if (acks === -1) {
    const [result] = await ctx.awaitReplication(request.timeoutMs ?? 0, [
      { tableBucket: bucket, baseOffset: put.firstOffset, writeEndOffset: put.lastOffset + 1 },
    ])
    if (result.error !== undefined) throw result.error
  }
  const inserted = await kv.lookup(missing)
  let next = 0
  return values.map(v => (v === null ? inserted[next++] : v))
}
