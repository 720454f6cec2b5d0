import { tableBucketKey } from '@sluice/core/metadata'
import { DelayedFetchLog } from './delay/delayed-fetch-log.js'
import type { DelayedOperationManager } from './delay/delayed-operation-manager.js'
import {
  type FetchLogResultForBucket,
  type FetchParams,
  type FetchReqInfo,
  fetchedBytes,
} from './fetch-types.js'
import { mayHaveProgress, type ReadContext, readFromLog } from './read-from-log.js'

export interface FetchContext extends ReadContext {
  readonly delayedFetches: DelayedOperationManager<DelayedFetchLog>
}

/** Errors that do not stop the other buckets of a fetch from waiting (the bucket moved elsewhere). */
const NON_CRITICAL_ERRORS = new Set(['NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION'])

/**
 * Serves a FETCH_LOG (Fluss's `fetchLogRecords` + `maybeAddDelayedFetchLog`): read every bucket
 * now; answer at once when no wait was asked, enough bytes came back or a bucket failed badly;
 * otherwise park the fetch until data arrives for a bucket or `maxWaitMs` passes. Buckets that
 * failed with a non-critical error are answered with that error either way.
 */
export async function fetchLogRecords(
  context: FetchContext,
  params: FetchParams,
  reqs: readonly FetchReqInfo[],
  signal?: AbortSignal,
): Promise<FetchLogResultForBucket[]> {
  const results = await readFromLog(context, params, reqs)
  const failed = results.filter(r => r.error !== undefined)
  const severe = failed.some(r => !NON_CRITICAL_ERRORS.has(r.error?.errorName ?? ''))
  const waiting = reqs.filter((_, i) => results[i].error === undefined)
  const answerNow =
    params.maxWaitMs <= 0 ||
    waiting.length === 0 ||
    severe ||
    results.some(r => r.remoteLogFetchInfo !== undefined) ||
    fetchedBytes(results) >= params.minBytes ||
    !context.delayedFetches.hasRoom ||
    signal?.aborted === true
  if (answerNow) return results
  return new Promise(resolve => {
    const respond = (delayed: FetchLogResultForBucket[] | Error) => {
      signal?.removeEventListener('abort', onAbort)
      if (delayed instanceof Error) resolve(results)
      else resolve(merge(reqs, delayed, failed))
    }
    const op = new DelayedFetchLog(
      params,
      waiting,
      {
        read: (p, r) => readFromLog(context, p, r),
        mayHaveProgress: (p, r) => mayHaveProgress(context, p, r),
      },
      respond,
    )
    const onAbort = () => op.forceComplete()
    signal?.addEventListener('abort', onAbort, { once: true })
    context.delayedFetches.tryCompleteElseWatch(
      op,
      waiting.map(r => tableBucketKey(r.tableBucket)),
    )
  })
}

/** The delayed answers plus the buckets that failed up front, in request order. */
function merge(
  reqs: readonly FetchReqInfo[],
  delayed: readonly FetchLogResultForBucket[],
  failed: readonly FetchLogResultForBucket[],
): FetchLogResultForBucket[] {
  const byKey = new Map<string, FetchLogResultForBucket>()
  for (const r of [...failed, ...delayed]) byKey.set(tableBucketKey(r.tableBucket), r)
  return reqs.flatMap(req => byKey.get(tableBucketKey(req.tableBucket)) ?? [])
}
