import { FlussError } from '@sluice/core/errors'
import type { ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { LookupKind, LookupQuery } from './lookup-queue.js'

/** The outcome for the queries of one bucket: an error, or the values of each query in order. */
export interface BucketAnswer {
  readonly queries: readonly LookupQuery[]
  readonly error?: FlussError
  readonly values: readonly Buffer[][]
}

interface BucketGroup {
  readonly partitionId: number | null
  readonly bucketId: number
  readonly queries: LookupQuery[]
}

interface BucketResponse {
  readonly partitionId: number | null
  readonly bucketId: number
  readonly errorCode: number | null
  readonly errorMessage: string | null
}

const groupKey = (partitionId: number | null, bucketId: number) => `${partitionId ?? '-'}:${bucketId}`

/**
 * Sends one LOOKUP or PREFIX_LOOKUP to a leader with the keys of every bucket in `queries` (which
 * all belong to one table), and splits the answer per bucket. A bucket the answer leaves out, or
 * whose value count does not match its keys, gets UNKNOWN_SERVER_ERROR.
 */
export async function sendLookupRequest(
  metadata: MetadataUpdater,
  leader: ServerNode,
  kind: LookupKind,
  queries: readonly LookupQuery[],
): Promise<BucketAnswer[]> {
  const groups = new Map<string, BucketGroup>()
  for (const q of queries) {
    const partitionId = q.bucket.partitionId ?? null
    const key = groupKey(partitionId, q.bucket.bucket)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, { partitionId, bucketId: q.bucket.bucket, queries: [q] })
    else group.queries.push(q)
  }
  const tableId = queries[0].bucket.tableId
  const bucketsReq = [...groups.values()].map(g => ({
    partitionId: g.partitionId,
    bucketId: g.bucketId,
    keys: g.queries.map(q => q.key),
  }))
  const answers: BucketAnswer[] = []
  const answer = (r: BucketResponse, values: () => Buffer[][]): void => {
    const key = groupKey(r.partitionId, r.bucketId)
    const group = groups.get(key)
    if (group === undefined) return
    groups.delete(key)
    answers.push(bucketAnswer(group, r, values))
  }
  if (kind === 'LOOKUP') {
    const response = await metadata.request(leader, 'LOOKUP', { tableId, bucketsReq })
    for (const r of response.bucketsResp)
      answer(r, () => r.values.map(v => (v.values === null ? [] : [v.values])))
  } else {
    const response = await metadata.request(leader, 'PREFIX_LOOKUP', { tableId, bucketsReq })
    for (const r of response.bucketsResp) answer(r, () => r.valueLists.map(l => l.values))
  }
  for (const group of groups.values()) {
    const error = new FlussError(
      'UNKNOWN_SERVER_ERROR',
      `The ${kind} response has no result for bucket ${group.bucketId}`,
    )
    answers.push({ queries: group.queries, error, values: [] })
  }
  return answers
}

function bucketAnswer(group: BucketGroup, r: BucketResponse, values: () => Buffer[][]): BucketAnswer {
  if (r.errorCode !== null && r.errorCode !== 0) {
    return { queries: group.queries, error: FlussError.fromCode(r.errorCode, r.errorMessage), values: [] }
  }
  const lists = values()
  if (lists.length !== group.queries.length) {
    const error = new FlussError(
      'UNKNOWN_SERVER_ERROR',
      `The answer for bucket ${group.bucketId} has ${lists.length} values for ${group.queries.length} keys`,
    )
    return { queries: group.queries, error, values: [] }
  }
  return { queries: group.queries, values: lists }
}
