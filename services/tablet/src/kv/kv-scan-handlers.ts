import { FlussError } from '@sluice/core/errors'
import { ValueRecordBatchBuilder } from '@sluice/core/kvbatch'
import { tableBucket, tableBucketToString } from '@sluice/core/metadata'
import type {
  LimitScanRequest,
  LimitScanResponseInit,
  PbPrefixLookupRespForBucketInit,
  PrefixLookupRequest,
  PrefixLookupResponseInit,
} from '@sluice/core/rpc'
import { routeReads } from './key-forwarding.js'
import { errorFields, type KvRequestContext, leaderKv, notLeader } from './kv-handler-context.js'

/** PREFIX_LOOKUP: for each prefix (an encoded bucket key) the values of its keys, in key order. */
export async function handlePrefixLookup(
  request: PrefixLookupRequest,
  ctx: KvRequestContext,
): Promise<PrefixLookupResponseInit> {
  const bucketsResp = await Promise.all(
    request.bucketsReq.map(async (b): Promise<PbPrefixLookupRespForBucketInit> => {
      const bucket = tableBucket(request.tableId, b.bucketId, b.partitionId ?? undefined)
      const head = { partitionId: b.partitionId, bucketId: b.bucketId }
      try {
        const { replica, kv } = leaderKv(
          ctx,
          bucket,
          `Try to do prefix lookup on a non primary key table: ${tableBucketToString(bucket)}`,
        )
        const lookupHere = async (prefixes: readonly Buffer[]) => {
          const lists: Buffer[][] = []
          for (const prefix of prefixes) lists.push(await kv.prefixLookup(prefix))
          return lists
        }
        const lists = await routeReads(
          ctx,
          replica,
          bucket,
          b.keys,
          'PREFIX_LOOKUP',
          lookupHere,
          (f, target, keys) => f.prefixLookup(target, keys),
        )
        return { ...head, valueLists: lists.map(values => ({ values })) }
      } catch (e) {
        return { ...head, ...errorFields(e) }
      }
    }),
  )
  return { bucketsResp }
}

/**
 * LIMIT_SCAN: on a primary-key bucket the first `limit` values in key order as a
 * DefaultValueRecordBatch; on a log bucket the batches holding the latest `limit` offsets below the
 * high watermark (Fluss reads from max(log start, HW - limit)).
 */
export async function handleLimitScan(
  request: LimitScanRequest,
  ctx: KvRequestContext,
): Promise<LimitScanResponseInit> {
  const bucket = tableBucket(request.tableId, request.bucketId, request.partitionId ?? undefined)
  try {
    if (!Number.isInteger(request.limit) || request.limit < 0) {
      throw new FlussError('INVALID_REQUEST', `Invalid limit ${request.limit} for limit scan, expected >= 0`)
    }
    const replica = ctx.getReplica(bucket)
    if (replica.isPrimaryKeyTable) {
      const { kv } = leaderKv(ctx, bucket)
      const builder = new ValueRecordBatchBuilder()
      for (const value of await kv.limitScan(request.limit)) builder.appendValue(value)
      return { isLogTable: false, records: builder.build() }
    }
    if (!replica.isLeader) throw notLeader(bucket, ctx.serverId)
    const log = replica.logTablet
    const fetchOffset = Math.max(log.logStartOffset, log.highWatermark - request.limit)
    const read = await log.read({
      fetchOffset,
      maxBytes: ctx.limitScanMaxBytes,
      isolation: 'HIGH_WATERMARK',
      minOneMessage: true,
    })
    return { isLogTable: true, records: read.records }
  } catch (e) {
    return errorFields(e)
  }
}
