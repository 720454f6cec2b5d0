import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { ApiRequestInit, ApiResponse, ConnectionPool, Handler } from '@sluice/core/rpc'
import type { ForwardedLookup, ForwardedPut, KeyForwarder } from '../kv/index.js'
import type { ReplicaManager } from '../replica/replica-manager.js'
import { leaderEndpoint } from './fetcher-wiring.js'

type ForwardedApi = 'PUT_KV' | 'LOOKUP' | 'PREFIX_LOOKUP'

export interface KvForwardingDeps {
  readonly manager: ReplicaManager
  readonly pool: Pick<ConnectionPool, 'request'>
  readonly internalListenerName: string
  readonly requestTimeoutMs: number
  /** This server's own KV handlers: a bucket led here is served without a network hop. */
  readonly local: () => { readonly [K in ForwardedApi]: Handler<K> }
}

/**
 * The KeyForwarder of a tablet server: a request for one bucket goes to the bucket's leader — this
 * server's own handler when it leads the bucket, else the leader a local follower replica knows
 * or the control plane names — and a bucket error in the answer is thrown (a retriable one, such
 * as NOT_LEADER_OR_FOLLOWER during a leader change, makes the client retry its whole request).
 */
export function kvKeyForwarder(deps: KvForwardingDeps): KeyForwarder {
  const send = async <K extends ForwardedApi>(
    target: TableBucket,
    api: K,
    request: ApiRequestInit<K>,
    timeoutMs: number,
  ): Promise<ApiResponse<K>> => {
    const replica = deps.manager.getReplica(target)
    if (replica?.isLeader === true) {
      const handler = deps.local()[api] as Handler<K>
      return (await handler(request as never, undefined as never)) as ApiResponse<K>
    }
    const leaderId = replica?.leaderId ?? (await deps.manager.controlPlane.getBucketLeader(target))
    if (leaderId === undefined || leaderId === null) {
      throw new FlussError('LEADER_NOT_AVAILABLE_EXCEPTION', `no leader is known for bucket ${target.bucket}`)
    }
    const endpoint = await leaderEndpoint(deps.manager, leaderId, deps.internalListenerName)
    return deps.pool.request({ ...endpoint, role: 'tablet' }, api, request, { timeoutMs })
  }
  const head = (t: TableBucket) => ({ partitionId: t.partitionId ?? null, bucketId: t.bucket })
  return {
    async putKv(target, records, request: ForwardedPut) {
      const response = await send(
        target,
        'PUT_KV',
        {
          acks: request.acks,
          tableId: target.tableId,
          timeoutMs: request.timeoutMs,
          targetColumns: [...request.targetColumns],
          ...(request.aggMode === undefined || request.aggMode === null ? {} : { aggMode: request.aggMode }),
          bucketsReq: [{ ...head(target), records }],
        },
        request.timeoutMs + deps.requestTimeoutMs,
      )
      throwBucketError(response.bucketsResp[0])
    },
    async lookup(target, keys, request: ForwardedLookup) {
      const response = await send(
        target,
        'LOOKUP',
        {
          tableId: target.tableId,
          bucketsReq: [{ ...head(target), keys: [...keys] }],
          ...(request.insertIfNotExists === true
            ? { insertIfNotExists: true, acks: request.acks ?? -1, timeoutMs: request.timeoutMs ?? 0 }
            : {}),
        },
        (request.timeoutMs ?? 0) + deps.requestTimeoutMs,
      )
      const answer = response.bucketsResp[0]
      throwBucketError(answer)
      return answer.values.map(v => (v.values === null ? null : Buffer.from(v.values)))
    },
    async prefixLookup(target, prefixes) {
      const response = await send(
        target,
        'PREFIX_LOOKUP',
        { tableId: target.tableId, bucketsReq: [{ ...head(target), keys: [...prefixes] }] },
        deps.requestTimeoutMs,
      )
      const answer = response.bucketsResp[0]
      throwBucketError(answer)
      return answer.valueLists.map(list => list.values.map(v => Buffer.from(v)))
    },
  }
}

function throwBucketError(
  answer: { errorCode?: number | null; errorMessage?: string | null } | undefined,
): void {
  if (answer === undefined) throw new FlussError('UNKNOWN_SERVER_ERROR', 'a forwarded request had no answer')
  if (answer.errorCode !== undefined && answer.errorCode !== null && answer.errorCode !== 0)
    throw FlussError.fromCode(answer.errorCode, answer.errorMessage)
}
