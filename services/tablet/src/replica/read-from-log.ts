import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { FetchLogResultForBucket, FetchParams, FetchReqInfo } from './fetch-types.js'
import { checkProjectedFields, projectLogRecords } from './log-projection.js'
import type { Replica } from './replica.js'
import { FETCH_FROM_EARLIEST_OFFSET } from './replica-types.js'
import type { SchemaCache } from './schema-cache.js'

export interface ReadContext {
  getReplicaOrException(bucket: TableBucket): Replica
  readonly schemas: SchemaCache
}

/**
 * Reads each requested bucket from its leader replica (Fluss's `readFromLog`): at most
 * `params.maxBytes` in total and each bucket's own limit, except that the first bucket with data
 * returns at least one whole batch so every fetch can progress. Projected fetches are rewritten
 * after the read. Failures are per bucket.
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
      if (req.projectedFields !== null) checkProjection(replica, req.projectedFields)
      const read = await replica.readRecords({
        fetchOffset: req.fetchOffset,
        maxBytes: Math.max(0, Math.min(remainingBytes, req.maxBytes)),
        minOneMessage,
        replicaId: params.replicaId,
      })
      let records = read.records
      if (records.length > 0) minOneMessage = false
      remainingBytes = Math.max(0, remainingBytes - records.length)
      if (req.projectedFields !== null && records.length > 0) {
        const { tableId } = req.tableBucket
        records = await projectLogRecords(
          records,
          schemaId => context.schemas.rowType(tableId, schemaId),
          req.projectedFields,
        )
      }
      results.push({
        tableBucket: req.tableBucket,
        highWatermark: read.highWatermark,
        logStartOffset: read.logStartOffset,
        records,
      })
    } catch (e) {
      results.push({ tableBucket: req.tableBucket, error: toFlussError(e) })
    }
  }
  return results
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

function checkProjection(replica: Replica, projectedFields: readonly number[]): void {
  const format = replica.tableInfo.tableConfig.get(TABLE_LOG_FORMAT)
  if (format !== 'ARROW') {
    throw new FlussError(
      'INVALID_COLUMN_PROJECTION',
      `column projection is only supported for the ARROW log format; ${replica.name} is ${format}`,
    )
  }
  checkProjectedFields(replica.tableInfo.rowType, projectedFields)
}
