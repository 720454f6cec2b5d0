import { ValueRecordBatchBuilder } from '@sluice/core/kvbatch'
import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type {
  ApiRequest,
  ApiResponseInit,
  PbLookupRespForBucketInit,
  PbPrefixLookupRespForBucketInit,
} from '@sluice/core/rpc'
import type { WriteResultForBucket } from '../replica/delay/delayed-write.js'
import type { KeysOfBucket, LimitScanResult } from '../replica/kv-reads.js'
import type { KvEntry } from '../replica/put-to-kv.js'
import type { BucketResult } from '../replica/replica-types.js'
import { errorFields, toTableBucket } from './rpc-conversions.js'

/**
 * Request and response translation of the primary-key APIs of the TabletService (PUT_KV, LOOKUP,
 * PREFIX_LOOKUP, LIMIT_SCAN) between Fluss's protobuf messages and the ReplicaManager.
 */

/** The primary-key APIs of the TabletService. */
export type KvServiceApi = 'PUT_KV' | 'LOOKUP' | 'PREFIX_LOOKUP' | 'LIMIT_SCAN'

/** Most bytes a LIMIT_SCAN of a log bucket returns (whole batches, at least one). */
export const LIMIT_SCAN_MAX_BYTES = 8 * 1024 * 1024

/** The buckets of a PUT_KV (a bucket named twice: the last batch). */
export function toKvEntries(request: ApiRequest<'PUT_KV'>): KvEntry[] {
  const entries = new Map<string, KvEntry>()
  for (const b of request.bucketsReq) {
    const tableBucket = toTableBucket(request.tableId, b.partitionId, b.bucketId)
    entries.set(tableBucketKey(tableBucket), { tableBucket, records: b.records })
  }
  return [...entries.values()]
}

export function toPutKvResponse(results: readonly WriteResultForBucket[]): ApiResponseInit<'PUT_KV'> {
  return {
    bucketsResp: results.map(r => ({
      ...bucketHead(r.tableBucket),
      ...(r.error === undefined ? { logEndOffset: r.writeEndOffset ?? null } : errorFields(r.error)),
    })),
  }
}

/** The buckets and keys of a LOOKUP or PREFIX_LOOKUP. */
export function toKeysOfBuckets(request: ApiRequest<'LOOKUP' | 'PREFIX_LOOKUP'>): KeysOfBucket[] {
  return request.bucketsReq.map(b => ({
    tableBucket: toTableBucket(request.tableId, b.partitionId, b.bucketId),
    keys: b.keys,
  }))
}

export function toLookupResponse(
  results: readonly BucketResult<(Buffer | null)[]>[],
): ApiResponseInit<'LOOKUP'> {
  return {
    bucketsResp: results.map((r): PbLookupRespForBucketInit => {
      if (r.error !== undefined) return { ...bucketHead(r.tableBucket), ...errorFields(r.error) }
      const found = r.value ?? []
      const values = new Array<{ values: Buffer | null }>(found.length)
      for (let i = 0; i < found.length; i++) values[i] = { values: found[i] }
      return { ...bucketHead(r.tableBucket), values }
    }),
  }
}

export function toPrefixLookupResponse(
  results: readonly BucketResult<Buffer[][]>[],
): ApiResponseInit<'PREFIX_LOOKUP'> {
  return {
    bucketsResp: results.map(
      (r): PbPrefixLookupRespForBucketInit =>
        r.error === undefined
          ? { ...bucketHead(r.tableBucket), valueLists: (r.value ?? []).map(values => ({ values })) }
          : { ...bucketHead(r.tableBucket), ...errorFields(r.error) },
    ),
  }
}

/** A primary-key bucket's values as a DefaultValueRecordBatch; a log bucket's batches as they are. */
export function toLimitScanResponse(result: LimitScanResult): ApiResponseInit<'LIMIT_SCAN'> {
  if (result.isLogTable) return { isLogTable: true, records: result.records }
  const builder = new ValueRecordBatchBuilder()
  for (const value of result.values) builder.appendValue(value)
  return { isLogTable: false, records: builder.build() }
}

function bucketHead(b: TableBucket): { partitionId: number | null; bucketId: number } {
  return { partitionId: b.partitionId ?? null, bucketId: b.bucket }
}
