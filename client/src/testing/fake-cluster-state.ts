import { FlussError } from '@sluice/core/errors'
import {
  PARTITION_SPEC_SEPARATOR,
  type Schema,
  type TableDescriptor,
  TableInfo,
  type TablePath,
  tableDescriptorToJson,
  tablePathToString,
} from '@sluice/core/metadata'
import type {
  MetadataRequest,
  MetadataResponseInit,
  PbBucketMetadataInit,
  PbServerNodeInit,
} from '@sluice/core/rpc'
import { FakeBucketLog } from './fake-bucket-log.js'
import { FakeKvStore } from './fake-kv-store.js'

export interface FakeTable {
  /** The latest info (replaced when the schema evolves). */
  info: TableInfo
  tableJson: Buffer
  /** Every schema version by id. */
  readonly schemas: Map<number, Schema>
  /** Partition name → partition id. */
  readonly partitions: Map<string, number>
}

export interface FakeDatabase {
  readonly json: Buffer
  readonly createdTime: number
}

const bucketKey = (tableId: number, bucket: number, partitionId?: number) =>
  `${tableId}:${partitionId ?? '-'}:${bucket}`

/**
 * The whole state of a fake cluster, shared by its coordinator and tablet servers: databases,
 * tables, partitions, bucket leaders and bucket logs. Each bucket has one log whatever its leader,
 * which models perfect replication: moving a leader loses nothing, so tests can count duplicates.
 * `leaders` is the truth the servers act on; `publishedLeaders` is what GET_METADATA answers, so a
 * test can let metadata lag behind a leader change.
 */
export class FakeClusterState {
  readonly databases = new Map<string, FakeDatabase>()
  readonly tables = new Map<string, FakeTable>()
  readonly leaders = new Map<string, number>()
  readonly publishedLeaders = new Map<string, number>()
  readonly logs = new Map<string, FakeBucketLog>()
  readonly kvStores = new Map<string, FakeKvStore>()
  /**
   * How fetches below a log's `tieredBelowOffset` are answered: 'records' serves them (what Sluice
   * servers do for Sluice clients), 'fetch-info' answers with a remote log fetch info instead.
   */
  remoteRead: 'records' | 'fetch-info' = 'records'
  coordinator: PbServerNodeInit | undefined
  tabletServers: PbServerNodeInit[] = []
  /** When false, leader moves are not visible in metadata until `publishLeaders()`. */
  autoPublish = true
  #nextTableId = 1
  #nextPartitionId = 1
  #nextWriterId = 1

  constructor(readonly tabletServerIds: readonly number[]) {
    this.databases.set('fluss', {
      json: Buffer.from('{"version":1,"custom_properties":{}}'),
      createdTime: Date.now(),
    })
  }

  table(path: TablePath): FakeTable {
    const table = this.tables.get(tablePathToString(path))
    if (table === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `Table ${tablePathToString(path)} does not exist`)
    return table
  }

  tableById(tableId: number): FakeTable | undefined {
    for (const t of this.tables.values()) if (t.info.tableId === tableId) return t
    return undefined
  }

  createTable(path: TablePath, descriptor: TableDescriptor, ignoreIfExists: boolean): void {
    if (!this.databases.has(path.databaseName))
      throw new FlussError('DATABASE_NOT_EXIST', `Database ${path.databaseName} does not exist`)
    const key = tablePathToString(path)
    if (this.tables.has(key)) {
      if (ignoreIfExists) return
      throw new FlussError('TABLE_ALREADY_EXIST', `Table ${key} already exists`)
    }
    const withBuckets = descriptor.bucketCount === undefined ? descriptor.withBucketCount(1) : descriptor
    const now = Date.now()
    const info = TableInfo.of(path, this.#nextTableId++, 1, withBuckets, now, now)
    this.tables.set(key, {
      info,
      tableJson: Buffer.from(tableDescriptorToJson(withBuckets)),
      schemas: new Map([[info.schemaId, info.schema]]),
      partitions: new Map(),
    })
    if (!info.isPartitioned) this.#assignBuckets(info.tableId, info.numBuckets)
  }

  /** Makes `schema` the table's latest schema under the next schema id (as ALTER TABLE ADD COLUMN would). */
  evolveSchema(path: TablePath, schema: Schema): number {
    const table = this.table(path)
    const old = table.info
    const schemaId = old.schemaId + 1
    const descriptor = old.toTableDescriptor().with({ schema })
    table.info = TableInfo.of(path, old.tableId, schemaId, descriptor, old.createdTime, Date.now())
    table.tableJson = Buffer.from(tableDescriptorToJson(descriptor))
    table.schemas.set(schemaId, schema)
    return schemaId
  }

  dropTable(path: TablePath, ignoreIfNotExists: boolean): void {
    const key = tablePathToString(path)
    if (!this.tables.delete(key) && !ignoreIfNotExists)
      throw new FlussError('TABLE_NOT_EXIST', `Table ${key} does not exist`)
  }

  createPartition(path: TablePath, values: readonly string[], ignoreIfExists: boolean): void {
    const table = this.table(path)
    const name = values.join(PARTITION_SPEC_SEPARATOR)
    if (table.partitions.has(name)) {
      if (ignoreIfExists) return
      throw new FlussError('PARTITION_ALREADY_EXISTS', `Partition ${name} already exists`)
    }
    const partitionId = this.#nextPartitionId++
    table.partitions.set(name, partitionId)
    this.#assignBuckets(table.info.tableId, table.info.numBuckets, partitionId)
  }

  nextWriterId(): number {
    return this.#nextWriterId++
  }

  /** The log of a bucket (created on first use). */
  log(tableId: number, bucket: number, partitionId?: number): FakeBucketLog {
    const key = bucketKey(tableId, bucket, partitionId)
    let log = this.logs.get(key)
    if (log === undefined) {
      log = new FakeBucketLog()
      this.logs.set(key, log)
    }
    return log
  }

  /** The KV store of a primary-key bucket (created on first use; its changelog goes to the bucket's log). */
  kv(tableId: number, bucket: number, partitionId?: number): FakeKvStore {
    const key = bucketKey(tableId, bucket, partitionId)
    let store = this.kvStores.get(key)
    if (store === undefined) {
      const table = this.tableById(tableId)
      if (table === undefined)
        throw new FlussError('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION', `Unknown table ${tableId}`)
      store = new FakeKvStore(() => table, this.log(tableId, bucket, partitionId))
      this.kvStores.set(key, store)
    }
    return store
  }

  leaderOf(tableId: number, bucket: number, partitionId?: number): number | undefined {
    return this.leaders.get(bucketKey(tableId, bucket, partitionId))
  }

  /** Makes `serverId` the leader of a bucket (visible in metadata now, or at `publishLeaders()`). */
  moveLeader(tableId: number, bucket: number, serverId: number, partitionId?: number): void {
    const key = bucketKey(tableId, bucket, partitionId)
    this.leaders.set(key, serverId)
    if (this.autoPublish) this.publishedLeaders.set(key, serverId)
  }

  publishLeaders(): void {
    for (const [key, leader] of this.leaders) this.publishedLeaders.set(key, leader)
  }

  metadata(request: MetadataRequest): MetadataResponseInit {
    const tableMetadata = request.tablePath.map(p => {
      const table = this.table(p)
      const info = table.info
      const bucketMetadata = info.isPartitioned ? [] : this.#bucketMetadata(info.tableId, info.numBuckets)
      return {
        tablePath: p,
        tableId: info.tableId,
        schemaId: info.schemaId,
        tableJson: table.tableJson,
        bucketMetadata,
        createdTime: info.createdTime,
        modifiedTime: info.modifiedTime,
      }
    })
    const partitions: { table: FakeTable; name: string; id: number }[] = []
    for (const p of request.partitionsPath) {
      const table = this.table(p)
      const id = table.partitions.get(p.partitionName ?? '')
      if (id === undefined)
        throw new FlussError('PARTITION_NOT_EXISTS', `Partition ${p.partitionName} does not exist`)
      partitions.push({ table, name: p.partitionName ?? '', id })
    }
    for (const id of request.partitionsId) {
      for (const table of this.tables.values()) {
        for (const [name, pid] of table.partitions) if (pid === id) partitions.push({ table, name, id })
      }
    }
    const partitionMetadata = partitions.map(({ table, name, id }) => ({
      tableId: table.info.tableId,
      partitionName: name,
      partitionId: id,
      bucketMetadata: this.#bucketMetadata(table.info.tableId, table.info.numBuckets, id),
    }))
    return {
      coordinatorServer: this.coordinator ?? null,
      tabletServers: this.tabletServers,
      tableMetadata,
      partitionMetadata,
    }
  }

  #bucketMetadata(tableId: number, numBuckets: number, partitionId?: number): PbBucketMetadataInit[] {
    return Array.from({ length: numBuckets }, (_, bucket) => {
      const leader = this.publishedLeaders.get(bucketKey(tableId, bucket, partitionId))
      return {
        bucketId: bucket,
        leaderId: leader ?? null,
        replicaId: [...this.tabletServerIds],
        leaderEpoch: 0,
      }
    })
  }

  #assignBuckets(tableId: number, numBuckets: number, partitionId?: number): void {
    for (let bucket = 0; bucket < numBuckets; bucket++) {
      const key = bucketKey(tableId, bucket, partitionId)
      const leader = this.tabletServerIds[bucket % this.tabletServerIds.length]
      this.leaders.set(key, leader)
      this.publishedLeaders.set(key, leader)
    }
  }
}
