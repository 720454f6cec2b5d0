import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { LookupKind, LookupQuery } from './lookup-queue.js'

/** The queries of one bucket, in the order their keys are sent. */
export interface BucketQueries {
  readonly bucket: TableBucket
  readonly queries: LookupQuery[]
}

/** The outcome for the queries of one bucket: an error, or the values of each query in order. */
export interface BucketAnswer {
  readonly queries: readonly LookupQuery[]
  readonly error?: FlussError
  readonly values: readonly Buffer[][]
}

interface BucketResponse {
  readonly partitionId: number | null
  readonly bucketId: number
  readonly errorCode: number | null
  readonly errorMessage: string | null
}

/** A bucket's key in a request: its id, with the partition id in front for partitioned tables. */
const bucketKey = (partitionId: number | null | undefined, bucketId: number): number | string =>
  partitionId === null || partitionId === undefined ? bucketId : `${partitionId}:${bucketId}`

/**
 * Sends one LOOKUP or PREFIX_LOOKUP to a leader with the keys of every bucket in `buckets` (all of
 * one table, each bucket once), and splits the answer per bucket. A bucket the answer leaves out, or
 * whose value count does not match its keys, gets UNKNOWN_SERVER_ERROR.
 */
export async function sendLookupRequest(
  metadata: MetadataUpdater,
  leader: ServerNode,
  kind: LookupKind,
  buckets: readonly BucketQueries[],
): Promise<BucketAnswer[]> {
  const pending = new Map<number | string, BucketQueries>()
  const bucketsReq = buckets.map(b => {
    const partitionId = b.bucket.partitionId ?? null
    pending.set(bucketKey(partitionId, b.bucket.bucket), b)
    return { partitionId, bucketId: b.bucket.bucket, keys: b.queries.map(q => q.key) }
  })
  const tableId = buckets[0].bucket.tableId
  const answers: BucketAnswer[] = []
  const answer = (r: BucketResponse, values: () => readonly Buffer[][]): void => {
    const key = bucketKey(r.partitionId, r.bucketId)
    const group = pending.get(key)
    if (group === undefined) return
    pending.delete(key)
    answers.push(bucketAnswer(group, r, values))
  }
  if (kind === 'LOOKUP') {
    const response = await metadata.request(leader, 'LOOKUP', { tableId, bucketsReq })
    for (const r of response.bucketsResp) {
      answer(r, () => r.values.map(v => (v.values === null ? [] : [v.values])))
    }
  } else {
    const response = await metadata.request(leader, 'PREFIX_LOOKUP', { tableId, bucketsReq })
    for (const r of response.bucketsResp) answer(r, () => r.valueLists.map(l => l.values))
  }
  for (const group of pending.values()) {
    const error = new FlussError(
      'UNKNOWN_SERVER_ERROR',
      `The ${kind} response has no result for bucket ${group.bucket.bucket}`,
    )
    answers.push({ queries: group.queries, error, values: [] })
  }
  return answers
}

function bucketAnswer(
  group: BucketQueries,
  r: BucketResponse,
  values: () => readonly Buffer[][],
): BucketAnswer {
  if (r.errorCode !== null && r.errorCode !== 0) {
    return { queries: group.queries, error: FlussError.fromCode(r.errorCode, r.errorMessage), values: [] }
  }
  const lists = values()
  if (lists.length !== group.queries.length) {
    const error = new FlussError(
      'UNKNOWN_SERVER_ERROR',
      `The answer for bucket ${group.bucket.bucket} has ${lists.length} values for ${group.queries.length} keys`,
    )
    return { queries: group.queries, error, values: [] }
  }
  return { queries: group.queries, values: lists }
}
