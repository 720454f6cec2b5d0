import { isFlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { PbRemoteLogFetchInfoInit } from '@sluice/core/rpc'
import type { LogReadResult } from '../log/index.js'
import type { FetchLogResultForBucket, FetchParams, FetchReqInfo } from './fetch-types.js'
import { readProjected, type StoredRead } from './projected-read.js'
import { type ResolvedProjection, resolveProjection } from './projection-schema.js'
import type { Replica } from './replica.js'
import { FETCH_FROM_EARLIEST_OFFSET } from './replica-types.js'

/** The part of a bucket's remote log that serves fetches below the local log start. */
export interface RemoteFetchSource {
  canFetch(offset: number): boolean
  earliestOffset(localLogStartOffset: number): number
  read(params: {
    fetchOffset: number
    maxBytes: number
    minOneMessage: boolean
  }): Promise<{ records: Buffer }>
  fetchInfo(fetchOffset: number): Promise<PbRemoteLogFetchInfoInit>
}

export interface ReadContext {
  getReplicaOrException(bucket: TableBucket): Replica
  /** The remote log of a bucket led here; null (or absent) when it has none. */
  remoteLogReader?(bucket: TableBucket): RemoteFetchSource | null
}

/**
 * Reads each requested bucket from its leader replica (Fluss's `readFromLog`): at most
 * `params.maxBytes` in total and each bucket's own limit, except that the first bucket with data
 * returns at least one whole batch so every fetch can progress. Projected fetches count projected
 * bytes against the limits. An offset below the local log start that the remote log holds is
 * served from it: as batches for Sluice clients, as remote-log fetch info for everyone else
 * (official clients and followers download or skip the segments themselves). Failures are per
 * bucket.
 */
export async function readFromLog(
  context: ReadContext,
  params: FetchParams,
  reqs: readonly FetchReqInfo[],
): Promise<FetchLogResultForBucket[]> {
  let remainingBytes = params.maxBytes
  let minOneMessage = true
  const results: FetchLogResultForBucket[] = []
  for (const req of reqs) {
    try {
      const replica = context.getReplicaOrException(req.tableBucket)
      const projection =
        req.projectedFields === null
          ? null
          : await resolveProjection(replica, req.projectedFields, req.projectionSchemaId ?? null)
      const maxBytes = Math.max(0, Math.min(remainingBytes, req.maxBytes))
      // A client's "from the earliest offset" starts at the log start including the remote log.
      const fromEarliest = req.fetchOffset === FETCH_FROM_EARLIEST_OFFSET && params.replicaId < 0
      const bucketReq = fromEarliest ? { ...req, fetchOffset: clientLogStartOffset(context, replica) } : req
      const result = await readBucket(
        context,
        params,
        bucketReq,
        replica,
        projection,
        maxBytes,
        minOneMessage,
      )
      const size = result.records?.length ?? 0
      if (size > 0) minOneMessage = false
      remainingBytes = Math.max(0, remainingBytes - size)
      results.push(result)
    } catch (e) {
      results.push({ tableBucket: req.tableBucket, error: toFlussError(e) })
    }
  }
  return results
}

async function readBucket(
  context: ReadContext,
  params: FetchParams,
  req: FetchReqInfo,
  replica: Replica,
  projection: ResolvedProjection | null,
  maxBytes: number,
  minOneMessage: boolean,
): Promise<FetchLogResultForBucket> {
  const { tableBucket } = req
  const local: StoredRead = (fetchOffset, max, minOne) =>
    replica.readRecords({ fetchOffset, maxBytes: max, minOneMessage: minOne, replicaId: params.replicaId })
  try {
    const read = await readMaybeProjected(replica, req, projection, local, maxBytes, minOneMessage)
    return {
      tableBucket,
      highWatermark: read.highWatermark,
      logStartOffset: read.logStartOffset,
      records: read.records,
    }
  } catch (e) {
    const remote = remoteFor(context, replica, req.fetchOffset, e)
    if (remote === null) throw e
    const log = replica.logTablet
    const logStartOffset = remote.earliestOffset(log.logStartOffset)
    const head = { tableBucket, highWatermark: log.highWatermark, logStartOffset }
    if (params.replicaId >= 0 || params.remoteRecords !== true) {
      return { ...head, remoteLogFetchInfo: await remote.fetchInfo(req.fetchOffset) }
    }
    const fromRemote: StoredRead = async (fetchOffset, max, minOne) => {
      const bounds = { highWatermark: log.highWatermark, logStartOffset, logEndOffset: log.logEndOffset }
      if (!remote.canFetch(fetchOffset)) return { ...bounds, records: Buffer.alloc(0) }
      const { records } = await remote.read({ fetchOffset, maxBytes: max, minOneMessage: minOne })
      return { ...bounds, records }
    }
    const read = await readMaybeProjected(replica, req, projection, fromRemote, maxBytes, minOneMessage)
    return { ...head, records: read.records }
  }
}

function readMaybeProjected(
  replica: Replica,
  req: FetchReqInfo,
  projection: ResolvedProjection | null,
  read: StoredRead,
  maxBytes: number,
  minOneMessage: boolean,
): Promise<LogReadResult> {
  if (projection === null) return read(req.fetchOffset, maxBytes, minOneMessage)
  return readProjected(read, schemaId => replica.schemas.rowType(schemaId), {
    fetchOffset: req.fetchOffset,
    maxBytes,
    minOneMessage,
    projection,
  })
}

function clientLogStartOffset(context: ReadContext, replica: Replica): number {
  const local = replica.logTablet.logStartOffset
  const remote = context.remoteLogReader?.(replica.tableBucket) ?? null
  return remote === null ? local : remote.earliestOffset(local)
}

/** The remote log that can serve an offset the local log refused as out of range, if any. */
function remoteFor(
  context: ReadContext,
  replica: Replica,
  fetchOffset: number,
  error: unknown,
): RemoteFetchSource | null {
  if (!isFlussError(error, 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION')) return null
  if (fetchOffset < 0 || fetchOffset >= replica.logTablet.logStartOffset) return null
  const reader = context.remoteLogReader?.(replica.tableBucket) ?? null
  return reader?.canFetch(fetchOffset) === true ? reader : null
}

/**
 * Whether a parked fetch may now find something new for `req`: the bucket's readable end moved
 * away from the fetch offset, or the replica is gone or no longer leads (the answer is an error).
 */
export function mayHaveProgress(context: ReadContext, params: FetchParams, req: FetchReqInfo): boolean {
  let replica: Replica
  try {
    replica = context.getReplicaOrException(req.tableBucket)
  } catch {
    return true
  }
  if (!replica.isLeader) return true
  const log = replica.logTablet
  const end = params.replicaId >= 0 ? log.logEndOffset : log.highWatermark
  const offset = req.fetchOffset === FETCH_FROM_EARLIEST_OFFSET ? log.logStartOffset : req.fetchOffset
  return end !== offset
}
