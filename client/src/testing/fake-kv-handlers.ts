import { FlussError, toFlussError } from '@sluice/core/errors'
import { ValueRecordBatchBuilder } from '@sluice/core/kvbatch'
import type {
  Handlers,
  LimitScanRequest,
  LookupRequest,
  PrefixLookupRequest,
  PutKvRequest,
  RequestContext,
} from '@sluice/core/rpc'
import type { FakeClusterState } from './fake-cluster-state.js'
import type { FakeStats } from './fake-handlers.js'

/** Test hooks around a fake tablet server's KV handling. */
export interface FakeKvHooks {
  /** Runs before a PUT_KV request is applied; throwing fails the whole request. */
  beforePutKv?: (serverId: number, request: PutKvRequest, ctx: RequestContext) => void | Promise<void>
  /** Runs after the batches were applied, before the answer is sent. */
  afterPutKv?: (serverId: number, request: PutKvRequest, ctx: RequestContext) => void | Promise<void>
  /** Runs before a LOOKUP or PREFIX_LOOKUP is answered; throwing fails the whole request. */
  beforeLookup?: (serverId: number, ctx: RequestContext) => void | Promise<void>
  /** Runs before a LIMIT_SCAN is answered; throwing fails the whole request. */
  beforeLimitScan?: (serverId: number, ctx: RequestContext) => void | Promise<void>
}

/** A PUT_KV request as the server received it (records copied). */
export interface RecordedPutKv {
  readonly serverId: number
  readonly tableId: number
  readonly acks: number
  readonly timeoutMs: number
  readonly targetColumns: readonly number[]
  readonly aggMode: number | null
  readonly buckets: readonly { partitionId: number | null; bucketId: number; records: Buffer }[]
}

/** A LOOKUP or PREFIX_LOOKUP request as the server received it (keys copied). */
export interface RecordedLookup {
  readonly serverId: number
  readonly api: 'LOOKUP' | 'PREFIX_LOOKUP'
  readonly tableId: number
  readonly buckets: readonly { partitionId: number | null; bucketId: number; keys: Buffer[] }[]
}

/** Every KV request the fake tablet servers received, in arrival order. */
export interface FakeKvRequestLog {
  readonly putKv: RecordedPutKv[]
  readonly lookups: RecordedLookup[]
  readonly limitScans: LimitScanRequest[]
}

type KvApis = 'PUT_KV' | 'LOOKUP' | 'PREFIX_LOOKUP' | 'LIMIT_SCAN'

/** A tablet server's primary-key APIs over the fake KV stores; non-leaders answer NOT_LEADER_OR_FOLLOWER. */
export function kvHandlers(
  state: FakeClusterState,
  serverId: number,
  stats: FakeStats,
  hooks: FakeKvHooks,
  log: FakeKvRequestLog,
): Handlers<KvApis> {
  const check = (tableId: number, bucket: number, partitionId: number | null): FlussError | undefined => {
    const table = state.tableById(tableId)
    if (table === undefined)
      return new FlussError('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION', `Unknown table ${tableId}`)
    if (state.leaderOf(tableId, bucket, partitionId ?? undefined) !== serverId) {
      stats.notLeaderAnswers++
      return new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `Server ${serverId} is not the leader of bucket ${bucket}`,
      )
    }
    if (!table.info.hasPrimaryKey)
      return new FlussError('NON_PRIMARY_KEY_TABLE_EXCEPTION', `Table ${tableId} is not a primary key table`)
    return undefined
  }
  const errorFields = (e: unknown) => {
    const error = toFlussError(e)
    return { errorCode: error.wireCode, errorMessage: error.message }
  }
  return {
    PUT_KV: async (r, ctx) => {
      log.putKv.push(recordPutKv(serverId, r))
      await hooks.beforePutKv?.(serverId, r, ctx)
      const bucketsResp = r.bucketsReq.map(b => {
        const base = { partitionId: b.partitionId, bucketId: b.bucketId }
        const error = check(r.tableId, b.bucketId, b.partitionId)
        if (error !== undefined) return { ...base, ...errorFields(error) }
        try {
          const store = state.kv(r.tableId, b.bucketId, b.partitionId ?? undefined)
          return { ...base, logEndOffset: store.apply(b.records, r.targetColumns, Date.now()) }
        } catch (e) {
          return { ...base, ...errorFields(e) }
        }
      })
      await hooks.afterPutKv?.(serverId, r, ctx)
      return { bucketsResp }
    },
    LOOKUP: async (r, ctx) => {
      log.lookups.push(recordLookup(serverId, 'LOOKUP', r))
      await hooks.beforeLookup?.(serverId, ctx)
      const bucketsResp = r.bucketsReq.map(b => {
        const base = { partitionId: b.partitionId, bucketId: b.bucketId }
        const error = check(r.tableId, b.bucketId, b.partitionId)
        if (error !== undefined) return { ...base, ...errorFields(error) }
        const store = state.kv(r.tableId, b.bucketId, b.partitionId ?? undefined)
        return { ...base, values: b.keys.map(k => ({ values: store.get(k) })) }
      })
      return { bucketsResp }
    },
    PREFIX_LOOKUP: async (r, ctx) => {
      log.lookups.push(recordLookup(serverId, 'PREFIX_LOOKUP', r))
      await hooks.beforeLookup?.(serverId, ctx)
      const bucketsResp = r.bucketsReq.map(b => {
        const base = { partitionId: b.partitionId, bucketId: b.bucketId }
        const error = check(r.tableId, b.bucketId, b.partitionId)
        if (error !== undefined) return { ...base, ...errorFields(error) }
        const store = state.kv(r.tableId, b.bucketId, b.partitionId ?? undefined)
        return { ...base, valueLists: b.keys.map(k => ({ values: store.prefix(k) })) }
      })
      return { bucketsResp }
    },
    LIMIT_SCAN: async (r, ctx) => {
      log.limitScans.push({
        tableId: r.tableId,
        partitionId: r.partitionId,
        bucketId: r.bucketId,
        limit: r.limit,
      })
      await hooks.beforeLimitScan?.(serverId, ctx)
      const table = state.tableById(r.tableId)
      if (
        table === undefined ||
        state.leaderOf(r.tableId, r.bucketId, r.partitionId ?? undefined) !== serverId
      ) {
        const error = check(r.tableId, r.bucketId, r.partitionId) ?? new FlussError('UNKNOWN_SERVER_ERROR')
        return errorFields(error)
      }
      if (!table.info.hasPrimaryKey) {
        const bucketLog = state.log(r.tableId, r.bucketId, r.partitionId ?? undefined)
        return { isLogTable: true, records: bucketLog.tail(r.limit) }
      }
      const builder = new ValueRecordBatchBuilder()
      const store = state.kv(r.tableId, r.bucketId, r.partitionId ?? undefined)
      for (const value of store.first(r.limit)) builder.appendValue(value)
      return { isLogTable: false, records: Buffer.from(builder.build()) }
    },
  }
}

function recordPutKv(serverId: number, r: PutKvRequest): RecordedPutKv {
  return {
    serverId,
    tableId: r.tableId,
    acks: r.acks,
    timeoutMs: r.timeoutMs,
    targetColumns: [...r.targetColumns],
    aggMode: r.aggMode,
    buckets: r.bucketsReq.map(b => ({
      partitionId: b.partitionId,
      bucketId: b.bucketId,
      records: Buffer.from(b.records),
    })),
  }
}

function recordLookup(
  serverId: number,
  api: 'LOOKUP' | 'PREFIX_LOOKUP',
  r: LookupRequest | PrefixLookupRequest,
): RecordedLookup {
  return {
    serverId,
    api,
    tableId: r.tableId,
    buckets: r.bucketsReq.map(b => ({
      partitionId: b.partitionId,
      bucketId: b.bucketId,
      keys: b.keys.map(k => Buffer.from(k)),
    })),
  }
}
