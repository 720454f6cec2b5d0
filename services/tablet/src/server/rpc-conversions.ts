import { toFlussError } from '@sluice/core/errors'
import { type TableBucket, tableBucket } from '@sluice/core/metadata'
import type {
  ApiRequest,
  PbFetchLogRespForBucketInit,
  PbFetchLogRespForTableInit,
  PbTableBucket,
  PbTableBucketInit,
} from '@sluice/core/rpc'
import type { FetchLogResultForBucket, FetchReqInfo } from '../replica/fetch-types.js'
import type { BucketResult, NotifyLeaderAndIsrData, StopReplicaData } from '../replica/replica-types.js'

/** Request/response translation between Fluss's protobuf messages and the replica layer. */

export function toTableBucket(tableId: number, partitionId: number | null, bucketId: number): TableBucket {
  return tableBucket(tableId, bucketId, partitionId ?? undefined)
}

export function fromPbTableBucket(b: PbTableBucket): TableBucket {
  return toTableBucket(b.tableId, b.partitionId, b.bucketId)
}

export function toPbTableBucket(b: TableBucket): PbTableBucketInit {
  return { tableId: b.tableId, partitionId: b.partitionId ?? null, bucketId: b.bucket }
}

/**
 * error_code / error_message fields for a failed bucket or request (Sluice-only codes map to Fluss
 * codes; anything not a FlussError is UNKNOWN_SERVER_ERROR).
 */
export function errorFields(e: unknown): { errorCode: number; errorMessage: string } {
  const error = toFlussError(e)
  return { errorCode: error.wireCode, errorMessage: error.message }
}

export function bucketErrorFields(r: BucketResult<unknown>): { errorCode?: number; errorMessage?: string } {
  return r.error === undefined ? {} : errorFields(r.error)
}

export function toNotifyLeaderAndIsrData(
  request: ApiRequest<'NOTIFY_LEADER_AND_ISR'>,
): NotifyLeaderAndIsrData[] {
  return request.notifyBucketsLeaderReq.map(b => {
    const path = b.physicalTablePath
    const tablePath = { databaseName: path.databaseName, tableName: path.tableName }
    return {
      physicalTablePath:
        path.partitionName === null ? { tablePath } : { tablePath, partitionName: path.partitionName },
      tableBucket: fromPbTableBucket(b.tableBucket),
      leader: b.leader,
      leaderEpoch: b.leaderEpoch,
      replicas: b.replicas,
      isr: b.isr,
      bucketEpoch: b.bucketEpoch,
      coordinatorEpoch: request.coordinatorEpoch,
    }
  })
}

export function toStopReplicaData(request: ApiRequest<'STOP_REPLICA'>): StopReplicaData[] {
  return request.stopReplicasReq.map(b => ({
    tableBucket: fromPbTableBucket(b.tableBucket),
    leaderEpoch: b.leaderEpoch,
    deleteLocal: b.delete,
    deleteRemote: b.deleteRemote ?? b.delete,
  }))
}

/** The buckets of a FETCH_LOG, with each table's projection (when pushed down). */
export function toFetchReqInfos(request: ApiRequest<'FETCH_LOG'>): FetchReqInfo[] {
  return request.tablesReq.flatMap(t =>
    t.bucketsReq.map(b => ({
      tableBucket: toTableBucket(t.tableId, b.partitionId, b.bucketId),
      fetchOffset: b.fetchOffset,
      maxBytes: b.maxFetchBytes,
      projectedFields: t.projectionPushdownEnabled ? t.projectedFields : null,
      projectionSchemaId: t.projectionPushdownEnabled ? t.projectionSchemaId : null,
    })),
  )
}

/** FETCH_LOG results grouped by table, tables and buckets in the order they were asked. */
export function toFetchLogResponse(
  results: readonly FetchLogResultForBucket[],
): PbFetchLogRespForTableInit[] {
  const tables = new Map<number, PbFetchLogRespForBucketInit[]>()
  for (const r of results) {
    const { tableId, partitionId, bucket } = r.tableBucket
    let buckets = tables.get(tableId)
    if (buckets === undefined) {
      buckets = []
      tables.set(tableId, buckets)
    }
    const base = { partitionId: partitionId ?? null, bucketId: bucket }
    if (r.error !== undefined) {
      buckets.push({ ...base, ...errorFields(r.error) })
    } else {
      buckets.push({
        ...base,
        highWatermark: r.highWatermark ?? null,
        logStartOffset: r.logStartOffset ?? null,
        ...(r.remoteLogFetchInfo === undefined
          ? { records: r.records ?? Buffer.alloc(0) }
          : { remoteLogFetchInfo: r.remoteLogFetchInfo, records: null }),
      })
    }
  }
  return [...tables].map(([tableId, bucketsResp]) => ({ tableId, bucketsResp }))
}
