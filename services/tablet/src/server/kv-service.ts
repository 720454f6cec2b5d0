import { KvRecordBatch } from '@sluice/core/kvbatch'
import { type TableBucket, tableBucket } from '@sluice/core/metadata'
import type { ApiRequest, ApiResponseInit, Handler } from '@sluice/core/rpc'
import {
  handleLimitScan,
  handleLookup,
  handlePrefixLookup,
  handlePutKv,
  type KeyRouter,
  type KvReplica,
  type KvRequestContext,
  keyRouter,
} from '../kv/index.js'
import type { Replica } from '../replica/replica.js'
import type { ReplicaManager } from '../replica/replica-manager.js'
import type { KvBuckets } from './kv-buckets.js'
import { type KvForwardingDeps, kvKeyForwarder } from './kv-forwarding.js'
import type { TableMeterSet } from './metrics/index.js'

/** The primary-key APIs of the TabletService. */
export type KvServiceApi = 'PUT_KV' | 'LOOKUP' | 'PREFIX_LOOKUP' | 'LIMIT_SCAN'

/** Most bytes a LIMIT_SCAN of a log bucket returns (whole batches, at least one). */
export const LIMIT_SCAN_MAX_BYTES = 8 * 1024 * 1024

export interface KvServiceOptions {
  readonly replicaManager: ReplicaManager
  readonly kvBuckets: KvBuckets
  readonly writesFenced: () => boolean
  /** Table meters, told once per request. */
  readonly metrics?: TableMeterSet
  /** How keys sent to the wrong bucket reach their own bucket's leader; absent: they are refused. */
  readonly forwarding?: Omit<KvForwardingDeps, 'manager' | 'local'>
}

/**
 * PUT_KV, LOOKUP, PREFIX_LOOKUP and LIMIT_SCAN over the replicas of this server: each bucket's
 * leadership must be ready first (a new leader opens its KvTablet before it serves), and a put's
 * batch of a schema newer than the ones the KvTablet knows makes that schema known first.
 */
export function kvServiceHandlers(options: KvServiceOptions): { [K in KvServiceApi]: Handler<K> } {
  const { forwarding } = options
  const forwarder =
    forwarding === undefined
      ? undefined
      : kvKeyForwarder({ ...forwarding, manager: options.replicaManager, local: () => handlers })
  const ctx = kvRequestContext(options, forwarder)
  const ready = new WeakSet<Promise<void>>()
  const handlers: { [K in KvServiceApi]: Handler<K> } = {
    PUT_KV: async (r: ApiRequest<'PUT_KV'>): Promise<ApiResponseInit<'PUT_KV'>> => {
      const buckets = r.bucketsReq.map(b => bucketOf(r.tableId, b))
      await whenLeadersReady(options.replicaManager, ready, buckets)
      await Promise.all(
        r.bucketsReq.map((b, i) => ensureSchema(options, buckets[i] as TableBucket, b.records)),
      )
      const response = await handlePutKv(r, ctx)
      options.metrics?.putKv(
        r,
        (response.bucketsResp ?? []).map(b => b.errorCode),
      )
      return response
    },
    LOOKUP: async (r: ApiRequest<'LOOKUP'>): Promise<ApiResponseInit<'LOOKUP'>> => {
      await whenLeadersReady(
        options.replicaManager,
        ready,
        r.bucketsReq.map(b => bucketOf(r.tableId, b)),
      )
      const response = await handleLookup(r, ctx)
      options.metrics?.looked(
        'lookup',
        r.tableId,
        (response.bucketsResp ?? []).some(b => !!b.errorCode),
      )
      return response
    },
    PREFIX_LOOKUP: async (r: ApiRequest<'PREFIX_LOOKUP'>): Promise<ApiResponseInit<'PREFIX_LOOKUP'>> => {
      await whenLeadersReady(
        options.replicaManager,
        ready,
        r.bucketsReq.map(b => bucketOf(r.tableId, b)),
      )
      const response = await handlePrefixLookup(r, ctx)
      options.metrics?.looked(
        'prefixLookup',
        r.tableId,
        (response.bucketsResp ?? []).some(b => !!b.errorCode),
      )
      return response
    },
    LIMIT_SCAN: async (r: ApiRequest<'LIMIT_SCAN'>): Promise<ApiResponseInit<'LIMIT_SCAN'>> => {
      await whenLeadersReady(options.replicaManager, ready, [bucketOf(r.tableId, r)])
      return handleLimitScan(r, ctx)
    },
  }
  return handlers
}

function bucketOf(tableId: number, b: { partitionId: number | null; bucketId: number }): TableBucket {
  return tableBucket(tableId, b.bucketId, b.partitionId ?? undefined)
}

/**
 * Waits for the buckets led here to be ready; a failed preparation shows up as the bucket's error.
 * A leadership's ready promise is awaited until it has resolved once (`readyLeaderships`): after
 * that every request of the leadership goes on at once.
 */
async function whenLeadersReady(
  manager: ReplicaManager,
  readyLeaderships: WeakSet<Promise<void>>,
  buckets: readonly TableBucket[],
): Promise<void> {
  let waits: Promise<void>[] | undefined
  for (const b of buckets) {
    const replica = manager.getReplica(b)
    if (replica?.isLeader !== true) continue
    const ready = replica.whenLeaderReady()
    if (readyLeaderships.has(ready)) continue
    const wait = ready.then(
      () => void readyLeaderships.add(ready),
      () => undefined,
    )
    if (waits === undefined) waits = [wait]
    else waits.push(wait)
  }
  if (waits !== undefined) await Promise.all(waits)
}

async function ensureSchema(
  options: KvServiceOptions,
  bucket: TableBucket,
  records: Uint8Array,
): Promise<void> {
  const replica = options.replicaManager.getReplica(bucket)
  if (replica === undefined || options.kvBuckets.kvTablet(bucket) === null) return
  let schemaId: number
  try {
    schemaId = KvRecordBatch.from(records).schemaId
  } catch {
    return // the put itself refuses the batch with its error
  }
  await replica.schemas.ensure(schemaId)
}

function kvRequestContext(
  options: KvServiceOptions,
  forwarder: KvRequestContext['forwarder'],
): KvRequestContext {
  const { replicaManager: manager, kvBuckets } = options
  // One view per replica: its fields read the replica's state when used.
  const views = new WeakMap<Replica, KvReplica>()
  return {
    ...(forwarder === undefined ? {} : { forwarder }),
    serverId: manager.serverId,
    limitScanMaxBytes: LIMIT_SCAN_MAX_BYTES,
    writesFenced: options.writesFenced,
    awaitReplication: (timeoutMs, results) => manager.awaitReplication(timeoutMs, results),
    getReplica(bucket): KvReplica {
      const replica = manager.getReplicaOrException(bucket)
      let view = views.get(replica)
      if (view === undefined) {
        view = kvReplicaView(manager, kvBuckets, replica, bucket)
        views.set(replica, view)
      }
      return view
    },
  }
}

function kvReplicaView(
  manager: ReplicaManager,
  kvBuckets: KvBuckets,
  replica: Replica,
  bucket: TableBucket,
): KvReplica {
  let router: KeyRouter | null | undefined
  return {
    get keyRouter() {
      if (router === undefined) router = replica.tableInfo.hasPrimaryKey ? routerOrNull(replica) : null
      return router ?? undefined
    },
    get isPrimaryKeyTable() {
      return replica.tableInfo.hasPrimaryKey
    },
    get isLeader() {
      return replica.isLeader
    },
    get kvTablet() {
      return replica.isLeader ? kvBuckets.kvTablet(bucket) : null
    },
    get logTablet() {
      return replica.logTablet
    },
    checkInSyncReplicas: acks => replica.checkInSyncReplicas(acks),
    maybeIncrementLeaderHighWatermark: () => {
      // The put appended to the log: wake the followers' parked fetches first.
      manager.completeDelayedOperations(bucket)
      return replica.maybeIncrementLeaderHighWatermark()
    },
  }
}

/** The key router of a replica's table; none for a table whose keys cannot be encoded (no client can write it). */
function routerOrNull(replica: Replica): KeyRouter | null {
  try {
    return keyRouter(replica.tableInfo)
  } catch {
    return null
  }
}
