import type { Configuration } from '@sluice/core/config'
import { SLUICE_TABLET_SERVER_FETCH_MAX_WAIT_TIME } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TablePath, tableBucketKey, tablePathToString } from '@sluice/core/metadata'
import {
  type ApiRequest,
  type ApiResponseInit,
  type Handler,
  type Handlers,
  isSluiceClient,
  type RequestContext,
} from '@sluice/core/rpc'
import type { ControlPlane } from '../control-plane/control-plane.js'
import type { KeyForwarder } from '../kv/index.js'
import type { ProduceEntry } from '../replica/append-to-log.js'
import type { WriteResultForBucket } from '../replica/delay/delayed-write.js'
import type { FetchParams } from '../replica/fetch-types.js'
import type { ReplicaManager } from '../replica/replica-manager.js'
import type { BucketResult } from '../replica/replica-types.js'
import { type KvForwardingDeps, kvKeyForwarder } from './kv-forwarding.js'
import {
  type KvServiceApi,
  LIMIT_SCAN_MAX_BYTES,
  toKeysOfBuckets,
  toKvEntries,
  toLimitScanResponse,
  toLookupResponse,
  toPrefixLookupResponse,
  toPutKvResponse,
} from './kv-service.js'
import type { TableMeterSet } from './metrics/index.js'
import {
  bucketErrorFields,
  errorFields,
  toFetchLogResponse,
  toFetchReqInfos,
  toNotifyLeaderAndIsrData,
  toPbTableBucket,
  toStopReplicaData,
  toTableBucket,
} from './rpc-conversions.js'
import { updateMetadataCache, updateSchemas } from './update-metadata.js'

/** The APIs the TabletService itself implements (the read-only admin APIs come from the shared catalog). */
export type TabletServiceApi =
  | 'PRODUCE_LOG'
  | 'FETCH_LOG'
  | 'LIST_OFFSETS'
  | 'INIT_WRITER'
  | 'NOTIFY_LEADER_AND_ISR'
  | 'STOP_REPLICA'
  | 'UPDATE_METADATA'
  | 'GET_TABLE_STATS'
  | KvServiceApi

/** Fluss's wait when a fetch sets min_bytes but not max_wait_ms. */
const DEFAULT_MAX_WAIT_MS_WHEN_MIN_BYTES_ENABLED = 100

export interface TabletServiceOptions {
  readonly replicaManager: ReplicaManager
  readonly controlPlane: ControlPlane
  readonly config: Configuration
  /** True while this server must not take writes (its membership lease was lost). */
  readonly writesFenced: () => boolean
  /** Table meters, told once per produce, fetch, put and lookup request. */
  readonly metrics?: TableMeterSet
  /**
   * How keys sent to the wrong bucket of a primary-key table reach their own bucket's leader;
   * absent: they are refused (MISROUTED_KEY).
   */
  readonly forwarding?: Omit<KvForwardingDeps, 'manager' | 'local'>
}

/**
 * The tablet server's RPC surface (Fluss's `TabletService`): each handler translates the protobuf
 * request, calls the ReplicaManager and builds the response. Per-bucket failures go into the
 * bucket's error fields; whole-request failures (bad acks, stale coordinator) are thrown.
 */
export class TabletService {
  readonly #options: TabletServiceOptions
  /** Serves keys of a primary-key table in the bucket they belong to; undefined: refused. */
  readonly #forwarder: KeyForwarder | undefined

  constructor(options: TabletServiceOptions) {
    this.#options = options
    const { forwarding } = options
    this.#forwarder =
      forwarding === undefined
        ? undefined
        : kvKeyForwarder({
            ...forwarding,
            manager: options.replicaManager,
            local: () => ({
              PUT_KV: r => this.putKv(r),
              LOOKUP: r => this.lookup(r),
              PREFIX_LOOKUP: r => this.prefixLookup(r),
            }),
          })
  }

  handlers(): Handlers<TabletServiceApi> {
    return {
      PRODUCE_LOG: (r: ApiRequest<'PRODUCE_LOG'>) => this.produceLog(r),
      PUT_KV: (r: ApiRequest<'PUT_KV'>) => this.putKv(r),
      LOOKUP: (r: ApiRequest<'LOOKUP'>) => this.lookup(r),
      PREFIX_LOOKUP: (r: ApiRequest<'PREFIX_LOOKUP'>) => this.prefixLookup(r),
      LIMIT_SCAN: (r: ApiRequest<'LIMIT_SCAN'>) => this.limitScan(r),
      FETCH_LOG: (r: ApiRequest<'FETCH_LOG'>, ctx: RequestContext) =>
        this.fetchLog(r, ctx.signal, isSluiceClient(ctx.connection)),
      LIST_OFFSETS: (r: ApiRequest<'LIST_OFFSETS'>) => this.listOffsets(r),
      INIT_WRITER: () => this.initWriter(),
      NOTIFY_LEADER_AND_ISR: (r: ApiRequest<'NOTIFY_LEADER_AND_ISR'>) => this.notifyLeaderAndIsr(r),
      STOP_REPLICA: (r: ApiRequest<'STOP_REPLICA'>) => this.stopReplica(r),
      UPDATE_METADATA: (r: ApiRequest<'UPDATE_METADATA'>) => this.updateMetadata(r),
      GET_TABLE_STATS: (r: ApiRequest<'GET_TABLE_STATS'>) => this.getTableStats(r),
    } satisfies { [K in TabletServiceApi]: Handler<K> }
  }

  async produceLog(request: ApiRequest<'PRODUCE_LOG'>): Promise<ApiResponseInit<'PRODUCE_LOG'>> {
    const byBucket = new Map<string, ProduceEntry>()
    for (const b of request.bucketsReq) {
      const tableBucket = toTableBucket(request.tableId, b.partitionId, b.bucketId)
      byBucket.set(tableBucketKey(tableBucket), { tableBucket, records: b.records })
    }
    const entries = [...byBucket.values()]
    const results: WriteResultForBucket[] = this.#options.writesFenced()
      ? entries.map(fencedWrite)
      : await this.#options.replicaManager.appendRecordsToLog(request.timeoutMs, request.acks, entries)
    this.#options.metrics?.produced(request.tableId, entries, results)
    return {
      bucketsResp: results.map(r => ({
        partitionId: r.tableBucket.partitionId ?? null,
        bucketId: r.tableBucket.bucket,
        ...(r.error === undefined ? { baseOffset: r.baseOffset ?? null } : errorFields(r.error)),
      })),
    }
  }

  /**
   * PUT_KV: each bucket's KV batch merged on its leader (see `ReplicaManager.putRecordsToKv`);
   * keys sent to the wrong bucket are put in their own.
   */
  async putKv(request: ApiRequest<'PUT_KV'>): Promise<ApiResponseInit<'PUT_KV'>> {
    const entries = toKvEntries(request)
    const results: WriteResultForBucket[] = this.#options.writesFenced()
      ? entries.map(fencedWrite)
      : await this.#options.replicaManager.putRecordsToKv(request, entries, this.#forwarder)
    this.#options.metrics?.putKv(
      request,
      results.map(r => r.error?.wireCode),
    )
    return toPutKvResponse(results)
  }

  /** LOOKUP: the values of the keys (absent: not found), optionally inserting missing keys. */
  async lookup(request: ApiRequest<'LOOKUP'>): Promise<ApiResponseInit<'LOOKUP'>> {
    const results = await this.#options.replicaManager.lookups(
      request,
      toKeysOfBuckets(request),
      this.#forwarder,
    )
    this.#options.metrics?.looked(
      'lookup',
      request.tableId,
      results.some(r => r.error !== undefined),
    )
    return toLookupResponse(results)
  }

  /** PREFIX_LOOKUP: for each prefix (an encoded bucket key) the values of its keys, in key order. */
  async prefixLookup(request: ApiRequest<'PREFIX_LOOKUP'>): Promise<ApiResponseInit<'PREFIX_LOOKUP'>> {
    const results = await this.#options.replicaManager.prefixLookups(
      toKeysOfBuckets(request),
      this.#forwarder,
    )
    this.#options.metrics?.looked(
      'prefixLookup',
      request.tableId,
      results.some(r => r.error !== undefined),
    )
    return toPrefixLookupResponse(results)
  }

  /** LIMIT_SCAN of one bucket: its first values in key order, or a log bucket's latest batches. */
  async limitScan(request: ApiRequest<'LIMIT_SCAN'>): Promise<ApiResponseInit<'LIMIT_SCAN'>> {
    const bucket = toTableBucket(request.tableId, request.partitionId, request.bucketId)
    try {
      const result = await this.#options.replicaManager.limitScan(bucket, request.limit, LIMIT_SCAN_MAX_BYTES)
      return toLimitScanResponse(result)
    } catch (e) {
      return errorFields(e)
    }
  }

  /** `remoteRecords`: the client reads tiered data through the server (Sluice's SDK). */
  async fetchLog(
    request: ApiRequest<'FETCH_LOG'>,
    signal?: AbortSignal,
    remoteRecords = false,
  ): Promise<ApiResponseInit<'FETCH_LOG'>> {
    const maxWaitCapMs = this.#options.config.get(SLUICE_TABLET_SERVER_FETCH_MAX_WAIT_TIME)
    const minBytes = request.minBytes ?? -1
    const askedWaitMs =
      request.minBytes === null ? 0 : (request.maxWaitMs ?? DEFAULT_MAX_WAIT_MS_WHEN_MIN_BYTES_ENABLED)
    const params: FetchParams = {
      replicaId: request.followerServerId,
      maxBytes: Math.max(0, request.maxBytes),
      minBytes,
      maxWaitMs: Math.min(Math.max(0, askedWaitMs), maxWaitCapMs),
      remoteRecords,
    }
    const results = await this.#options.replicaManager.fetchLogRecords(
      params,
      toFetchReqInfos(request),
      signal,
    )
    this.#options.metrics?.fetched(request.followerServerId >= 0, results)
    return { tablesResp: toFetchLogResponse(results) }
  }

  async listOffsets(request: ApiRequest<'LIST_OFFSETS'>): Promise<ApiResponseInit<'LIST_OFFSETS'>> {
    const buckets = request.bucketId.map(b => toTableBucket(request.tableId, request.partitionId, b))
    const results = await this.#options.replicaManager.listOffsets(
      {
        followerServerId: request.followerServerId,
        offsetType: request.offsetType,
        startTimestamp: request.startTimestamp,
      },
      buckets,
    )
    return {
      bucketsResp: results.map(r => ({
        bucketId: r.tableBucket.bucket,
        ...(r.error === undefined ? { offset: r.value ?? null } : errorFields(r.error)),
      })),
    }
  }

  async initWriter(): Promise<ApiResponseInit<'INIT_WRITER'>> {
    return { writerId: await this.#options.controlPlane.allocateWriterId() }
  }

  async notifyLeaderAndIsr(
    request: ApiRequest<'NOTIFY_LEADER_AND_ISR'>,
  ): Promise<ApiResponseInit<'NOTIFY_LEADER_AND_ISR'>> {
    const results = await this.#options.replicaManager.becomeLeaderOrFollower(
      request.coordinatorEpoch,
      toNotifyLeaderAndIsrData(request),
    )
    return {
      notifyBucketsLeaderResp: results.map(r => ({
        tableBucket: toPbTableBucket(r.tableBucket),
        ...bucketErrorFields(r),
      })),
    }
  }

  async stopReplica(request: ApiRequest<'STOP_REPLICA'>): Promise<ApiResponseInit<'STOP_REPLICA'>> {
    const results = await this.#options.replicaManager.stopReplicas(
      request.coordinatorEpoch,
      toStopReplicaData(request),
    )
    return {
      stopReplicasResp: results.map(r => ({
        tableBucket: toPbTableBucket(r.tableBucket),
        ...bucketErrorFields(r),
      })),
    }
  }

  async updateMetadata(request: ApiRequest<'UPDATE_METADATA'>): Promise<ApiResponseInit<'UPDATE_METADATA'>> {
    const manager = this.#options.replicaManager
    await manager.stateChanges.run(() => {
      manager.validateAndApplyCoordinatorEpoch(request.coordinatorEpoch ?? 0, 'updateMetadata')
      updateMetadataCache(manager.metadataCache, request)
      updateSchemas(manager.schemas, request)
    })
    return {}
  }

  async getTableStats(request: ApiRequest<'GET_TABLE_STATS'>): Promise<ApiResponseInit<'GET_TABLE_STATS'>> {
    const buckets = request.bucketsReq.map(b => toTableBucket(request.tableId, b.partitionId, b.bucketId))
    const results = this.#options.replicaManager.getTableStats(buckets).map(r => this.#kvRowCount(r))
    return {
      bucketsResp: results.map(r => ({
        partitionId: r.tableBucket.partitionId ?? null,
        bucketId: r.tableBucket.bucket,
        ...(r.error === undefined ? { rowCount: r.value ?? null } : errorFields(r.error)),
      })),
    }
  }

  /** Primary-key buckets count the rows of their KvTablet (Fluss's `getRowCount`), not log records. */
  #kvRowCount(result: BucketResult<number>): BucketResult<number> {
    if (result.error !== undefined) return result
    const replica = this.#options.replicaManager.getReplica(result.tableBucket)
    if (replica === undefined || !replica.tableInfo.hasPrimaryKey) return result
    const kv = replica.kvTablet
    if (kv === null) {
      const error = new FlussError('NOT_LEADER_OR_FOLLOWER', `${replica.name} has no open KV store here`)
      return { tableBucket: result.tableBucket, error }
    }
    if (kv.rowCount < 0) {
      return { tableBucket: result.tableBucket, error: rowCountDisabled(replica.tableInfo.tablePath) }
    }
    return { tableBucket: result.tableBucket, value: kv.rowCount }
  }
}

/** A write refused by a server that lost its membership lease. */
function fencedWrite(entry: { readonly tableBucket: TableBucket }): WriteResultForBucket {
  return {
    tableBucket: entry.tableBucket,
    error: new FlussError('NOT_LEADER_OR_FOLLOWER', 'this tablet server lost its membership lease'),
  }
}

/**
 * A primary-key table that does not maintain its row count (`table.changelog.image=WAL`), in
 * Fluss's words (`KvTablet#getRowCount`, the missing space included).
 */
function rowCountDisabled(path: TablePath): FlussError {
  return new FlussError(
    'INVALID_TABLE_EXCEPTION',
    `Row count is disabled for this table '${tablePathToString(path)}'. This usually happens when the table is` +
      'created before v0.9 or the changelog image is set to WAL, ' +
      'as maintaining row count in WAL mode is costly and not necessary for most use cases. ' +
      'If you want to enable row count, please set changelog image to FULL.',
  )
}
