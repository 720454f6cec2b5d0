import { FlussError, toFlussError } from '@sluice/core/errors'
import {
  schemaToJson,
  type TablePath,
  tableDescriptorFromJson,
  tablePathToString,
} from '@sluice/core/metadata'
import type { ApiRequest, Handlers, ProduceLogRequest, RequestContext } from '@sluice/core/rpc'
import type { FakeBucketLog } from './fake-bucket-log.js'
import type { FakeClusterState } from './fake-cluster-state.js'

/** Test hooks around a fake tablet server's produce handling. */
export interface FakeTabletHooks {
  /** Runs before a produce request is applied; throwing fails the whole request. */
  beforeProduce?: (serverId: number, request: ProduceLogRequest, ctx: RequestContext) => void | Promise<void>
  /** Runs after the batches were appended, before the answer is sent. */
  afterProduce?: (serverId: number, request: ProduceLogRequest, ctx: RequestContext) => void | Promise<void>
}

/** Counters tests assert on. */
export interface FakeStats {
  produceRequests: number
  fetchRequests: number
  notLeaderAnswers: number
  metadataRequests: number
  schemaRequests: number
}

const path = (p: { databaseName: string; tableName: string }): TablePath => ({
  databaseName: p.databaseName,
  tableName: p.tableName,
})

type ReadOnlyApis =
  | 'GET_METADATA'
  | 'LIST_DATABASES'
  | 'DATABASE_EXISTS'
  | 'GET_DATABASE_INFO'
  | 'GET_TABLE_INFO'
  | 'LIST_TABLES'
  | 'TABLE_EXISTS'
  | 'GET_TABLE_SCHEMA'
  | 'LIST_PARTITION_INFOS'

/** What both roles answer: metadata and the read-only admin calls. */
export function readOnlyHandlers(state: FakeClusterState, stats: FakeStats): Handlers<ReadOnlyApis> {
  return {
    GET_METADATA: request => {
      stats.metadataRequests++
      return state.metadata(request)
    },
    LIST_DATABASES: () => ({ databaseName: [...state.databases.keys()] }),
    DATABASE_EXISTS: r => ({ exists: state.databases.has(r.databaseName) }),
    GET_DATABASE_INFO: r => {
      const db = state.databases.get(r.databaseName)
      if (db === undefined)
        throw new FlussError('DATABASE_NOT_EXIST', `Database ${r.databaseName} does not exist`)
      return { databaseJson: db.json, createdTime: db.createdTime, modifiedTime: db.createdTime }
    },
    GET_TABLE_INFO: r => {
      const { info, tableJson } = state.table(path(r.tablePath))
      return {
        tableId: info.tableId,
        schemaId: info.schemaId,
        tableJson,
        createdTime: info.createdTime,
        modifiedTime: info.modifiedTime,
      }
    },
    LIST_TABLES: r => {
      if (!state.databases.has(r.databaseName))
        throw new FlussError('DATABASE_NOT_EXIST', `Database ${r.databaseName} does not exist`)
      const names = [...state.tables.values()]
        .filter(t => t.info.tablePath.databaseName === r.databaseName)
        .map(t => t.info.tablePath.tableName)
      return { tableName: names }
    },
    TABLE_EXISTS: r => ({ exists: state.tables.has(tablePathToString(path(r.tablePath))) }),
    GET_TABLE_SCHEMA: r => {
      stats.schemaRequests++
      const { info, schemas } = state.table(path(r.tablePath))
      const schemaId = r.schemaId ?? info.schemaId
      const schema = schemas.get(schemaId)
      if (schema === undefined)
        throw new FlussError('SCHEMA_NOT_EXIST', `Schema ${r.schemaId} does not exist`)
      return { schemaId, schemaJson: Buffer.from(schemaToJson(schema)) }
    },
    LIST_PARTITION_INFOS: r => {
      const table = state.table(path(r.tablePath))
      const keys = table.info.partitionKeys
      const infos = [...table.partitions].map(([name, partitionId]) => {
        const values = name.split('$')
        return {
          partitionId,
          partitionSpec: { partitionKeyValues: keys.map((key, i) => ({ key, value: values[i] })) },
        }
      })
      const wanted = r.partialPartitionSpec?.partitionKeyValues ?? []
      return {
        partitionsInfo: infos.filter(i =>
          wanted.every(w =>
            i.partitionSpec.partitionKeyValues.some(kv => kv.key === w.key && kv.value === w.value),
          ),
        ),
      }
    },
  }
}

type CoordinatorApis =
  | 'CREATE_DATABASE'
  | 'DROP_DATABASE'
  | 'CREATE_TABLE'
  | 'DROP_TABLE'
  | 'CREATE_PARTITION'
  | 'DROP_PARTITION'

/** The coordinator's DDL. */
export function coordinatorHandlers(state: FakeClusterState): Handlers<CoordinatorApis> {
  return {
    CREATE_DATABASE: r => {
      if (state.databases.has(r.databaseName)) {
        if (r.ignoreIfExists) return {}
        throw new FlussError('DATABASE_ALREADY_EXIST', `Database ${r.databaseName} already exists`)
      }
      state.databases.set(r.databaseName, {
        json: Buffer.from(r.databaseJson ?? Buffer.from('{"version":1}')),
        createdTime: Date.now(),
      })
      return {}
    },
    DROP_DATABASE: r => {
      if (!state.databases.delete(r.databaseName) && !r.ignoreIfNotExists)
        throw new FlussError('DATABASE_NOT_EXIST', `Database ${r.databaseName} does not exist`)
      return {}
    },
    CREATE_TABLE: r => {
      state.createTable(path(r.tablePath), tableDescriptorFromJson(r.tableJson), r.ignoreIfExists)
      return {}
    },
    DROP_TABLE: r => {
      state.dropTable(path(r.tablePath), r.ignoreIfNotExists)
      return {}
    },
    CREATE_PARTITION: r => {
      const table = state.table(path(r.tablePath))
      const spec = new Map(r.partitionSpec.partitionKeyValues.map(kv => [kv.key, kv.value]))
      const values = table.info.partitionKeys.map(k => {
        const v = spec.get(k)
        if (v === undefined)
          throw new FlussError('PARTITION_SPEC_INVALID_EXCEPTION', `Missing partition key ${k}`)
        return v
      })
      state.createPartition(path(r.tablePath), values, r.ignoreIfNotExists)
      return {}
    },
    DROP_PARTITION: r => {
      const table = state.table(path(r.tablePath))
      const name = table.info.partitionKeys
        .map(k => r.partitionSpec.partitionKeyValues.find(kv => kv.key === k)?.value)
        .join('$')
      if (!table.partitions.delete(name) && !r.ignoreIfNotExists)
        throw new FlussError('PARTITION_NOT_EXISTS', `Partition ${name} does not exist`)
      return {}
    },
  }
}

type TabletApis = 'PRODUCE_LOG' | 'FETCH_LOG' | 'LIST_OFFSETS' | 'INIT_WRITER'

/** A tablet server's data APIs; buckets it does not lead answer NOT_LEADER_OR_FOLLOWER. */
export function tabletHandlers(
  state: FakeClusterState,
  serverId: number,
  stats: FakeStats,
  hooks: FakeTabletHooks,
): Handlers<TabletApis> {
  const notLeader = (bucket: number): { errorCode: number; errorMessage: string } => {
    stats.notLeaderAnswers++
    return { errorCode: 12, errorMessage: `Server ${serverId} is not the leader of bucket ${bucket}` }
  }
  const isLeader = (tableId: number, bucket: number, partitionId: number | null) =>
    state.leaderOf(tableId, bucket, partitionId ?? undefined) === serverId
  return {
    PRODUCE_LOG: async (r, ctx) => {
      stats.produceRequests++
      await hooks.beforeProduce?.(serverId, r, ctx)
      const bucketsResp = r.bucketsReq.map(b => {
        const base = { partitionId: b.partitionId, bucketId: b.bucketId }
        if (!isLeader(r.tableId, b.bucketId, b.partitionId)) return { ...base, ...notLeader(b.bucketId) }
        try {
          return {
            ...base,
            baseOffset: state
              .log(r.tableId, b.bucketId, b.partitionId ?? undefined)
              .append(b.records, Date.now()),
          }
        } catch (e) {
          const error = toFlussError(e)
          return { ...base, errorCode: error.wireCode, errorMessage: error.message }
        }
      })
      await hooks.afterProduce?.(serverId, r, ctx)
      return { bucketsResp }
    },
    FETCH_LOG: async (r, ctx) => {
      stats.fetchRequests++
      let response = fetchOnce(state, r, isLeader, notLeader)
      if (response.bytes < (r.minBytes ?? 1) && (r.maxWaitMs ?? 0) > 0 && response.waitOn.length > 0) {
        await Promise.race(response.waitOn.map(log => log.waitForAppend(r.maxWaitMs ?? 0, ctx.signal)))
        response = fetchOnce(state, r, isLeader, notLeader)
      }
      return { tablesResp: response.tablesResp }
    },
    LIST_OFFSETS: r => ({
      bucketsResp: r.bucketId.map(bucketId => {
        if (!isLeader(r.tableId, bucketId, r.partitionId)) return { bucketId, ...notLeader(bucketId) }
        const log = state.log(r.tableId, bucketId, r.partitionId ?? undefined)
        const offset =
          r.offsetType === 0
            ? log.logStartOffset
            : r.offsetType === 1
              ? log.endOffset
              : log.offsetForTimestamp(r.startTimestamp ?? 0)
        return { bucketId, offset }
      }),
    }),
    INIT_WRITER: () => ({ writerId: state.nextWriterId() }),
  }
}

function fetchOnce(
  state: FakeClusterState,
  r: ApiRequest<'FETCH_LOG'>,
  isLeader: (tableId: number, bucket: number, partitionId: number | null) => boolean,
  notLeader: (bucket: number) => { errorCode: number; errorMessage: string },
) {
  let bytes = 0
  const waitOn: FakeBucketLog[] = []
  const tablesResp = r.tablesReq.map(t => {
    const table = state.tableById(t.tableId)
    const projection =
      t.projectionPushdownEnabled && table !== undefined
        ? { rowType: table.info.rowType, fields: t.projectedFields }
        : undefined
    const bucketsResp = t.bucketsReq.map(b => {
      const base = { partitionId: b.partitionId, bucketId: b.bucketId }
      if (table === undefined) return { ...base, errorCode: 21, errorMessage: `Unknown table ${t.tableId}` }
      if (!isLeader(t.tableId, b.bucketId, b.partitionId)) return { ...base, ...notLeader(b.bucketId) }
      const log = state.log(t.tableId, b.bucketId, b.partitionId ?? undefined)
      if (b.fetchOffset < log.tieredBelowOffset && state.remoteRead === 'fetch-info') {
        const remoteLogFetchInfo = {
          remoteLogTabletDir: `fake://remote/${t.tableId}/${b.bucketId}`,
          firstStartPos: 0,
        }
        return {
          ...base,
          highWatermark: log.endOffset,
          logStartOffset: log.logStartOffset,
          remoteLogFetchInfo,
        }
      }
      try {
        const records = log.read(
          b.fetchOffset,
          Math.min(b.maxFetchBytes, Math.max(1, r.maxBytes - bytes)),
          projection,
        )
        bytes += records.length
        if (records.length === 0) waitOn.push(log)
        return { ...base, highWatermark: log.endOffset, logStartOffset: log.logStartOffset, records }
      } catch (e) {
        const error = toFlussError(e)
        return { ...base, errorCode: error.wireCode, errorMessage: error.message }
      }
    })
    return { tableId: t.tableId, bucketsResp }
  })
  return { tablesResp, bytes, waitOn }
}
