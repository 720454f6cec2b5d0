import { FlussError } from '../errors/index.js'
import { detectInvalidName, type TablePath, tablePathToString } from '../metadata/index.js'
import {
  BUCKET_SK_PREFIX,
  type BucketRef,
  bucketKey,
  bucketSkPrefix,
  CATALOG_PK,
  CLUSTER_PK,
  coordinatorKey,
  DATABASE_SK_PREFIX,
  databaseKey,
  databaseTablesPk,
  type MetaStore,
  PARTITION_SK_PREFIX,
  parseDatabaseName,
  parsePartitionName,
  parseSchemaId,
  parseTableName,
  partitionKey,
  SCHEMA_SK_PREFIX,
  SERVER_SK_PREFIX,
  schemaKey,
  TABLE_SK_PREFIX,
  tableIdKey,
  tableItemsPk,
  tablePathKey,
  type VersionedItem,
} from '../metastore/index.js'
import { type BucketRecord, decodeBucket } from './bucket-item.js'
import { CachedMetaStore } from './cached-metastore.js'
import {
  type CoordinatorLeaseRecord,
  decodeCoordinatorLease,
  decodeTabletServerLease,
  type TabletServerLeaseRecord,
} from './lease-items.js'
import { decodePartition, type PartitionRecord, type PartitionState } from './partition-item.js'
import { queryAll } from './query-all.js'
import {
  type DatabaseRecord,
  decodeDatabase,
  decodeSchema,
  decodeTable,
  decodeTablePointer,
  type SchemaRecord,
  type TablePointer,
  type TableRecord,
} from './table-items.js'

export interface CatalogOptions {
  /** Reuse read results for this long (tablet servers, gateway); 0 or unset reads through (coordinator). */
  readonly cacheTtlMs?: number
  /** Most cached read results; default 10,000. */
  readonly cacheMaxEntries?: number
  /** The clock that decides lease expiry (and cache expiry); default Date.now. */
  readonly nowMs?: () => number
}

/** Names that can never be stored (they fail Fluss's name rules) are simply not found. */
const storable = (name: string) => typeof name === 'string' && detectInvalidName(name) === undefined

/**
 * Typed reads of the control-plane items: databases, tables, schemas, partitions, buckets and the
 * server leases. Tables and partitions that are being created or dropped are invisible here.
 */
export class Catalog {
  /** The store reads go through (cached when a TTL is set). */
  readonly store: MetaStore
  readonly nowMs: () => number
  /**
   * The same catalog reading through (itself when there is no cache). Negative answers of a cached
   * catalog (no such table or partition) are confirmed here, so that something created a moment
   * ago is never reported missing for the cache's lifetime.
   */
  readonly direct: Catalog

  constructor(store: MetaStore, options: CatalogOptions = {}) {
    this.nowMs = options.nowMs ?? Date.now
    const ttlMs = options.cacheTtlMs ?? 0
    this.store =
      ttlMs > 0
        ? new CachedMetaStore(store, {
            ttlMs,
            maxEntries: options.cacheMaxEntries ?? 10_000,
            nowMs: this.nowMs,
          })
        : store
    this.direct = ttlMs > 0 ? new Catalog(store, { nowMs: this.nowMs }) : this
  }

  get cached(): boolean {
    return this.direct !== this
  }

  async getDatabase(databaseName: string): Promise<DatabaseRecord | undefined> {
    if (!storable(databaseName)) return undefined
    const { pk, sk } = databaseKey(databaseName)
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeDatabase(databaseName, item)
  }

  async getDatabaseOrThrow(databaseName: string): Promise<DatabaseRecord> {
    const db = await this.getDatabase(databaseName)
    if (db === undefined)
      throw new FlussError('DATABASE_NOT_EXIST', `Database '${databaseName}' does not exist.`)
    return db
  }

  async databaseExists(databaseName: string): Promise<boolean> {
    return (await this.getDatabase(databaseName)) !== undefined
  }

  async listDatabases(): Promise<DatabaseRecord[]> {
    const items = await queryAll(this.store, CATALOG_PK, DATABASE_SK_PREFIX)
    return items.map(item => decodeDatabase(parseDatabaseName(item.sk), item))
  }

  /** Table names of a database; DATABASE_NOT_EXIST when it does not exist. */
  async listTables(databaseName: string): Promise<string[]> {
    if (!(await this.databaseExists(databaseName))) {
      throw new FlussError('DATABASE_NOT_EXIST', `Database ${databaseName} does not exist.`)
    }
    const items = await queryAll(this.store, databaseTablesPk(databaseName), TABLE_SK_PREFIX)
    return items.map(item => parseTableName(item.sk))
  }

  async getTablePointer(path: TablePath): Promise<TablePointer | undefined> {
    if (!storable(path.databaseName) || !storable(path.tableName)) return undefined
    const { pk, sk } = tablePathKey(path.databaseName, path.tableName)
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeTablePointer(path, item)
  }

  async tableExists(path: TablePath): Promise<boolean> {
    return (await this.getTable(path)) !== undefined
  }

  /**
   * The table at a path. The path pointer is the commit point of creation: a table item still in
   * CREATING behind an existing pointer (a creation cut short after its commit) is a created table.
   */
  async getTable(path: TablePath): Promise<TableRecord | undefined> {
    const table = await this.#getTable(path)
    return table === undefined && this.cached ? this.direct.getTable(path) : table
  }

  async #getTable(path: TablePath): Promise<TableRecord | undefined> {
    const pointer = await this.getTablePointer(path)
    if (pointer === undefined) return undefined
    const table = await this.getTableById(pointer.tableId)
    if (table === undefined || table.state === 'DROPPED') return undefined
    const samePath =
      table.tablePath.databaseName === path.databaseName && table.tablePath.tableName === path.tableName
    return samePath ? table : undefined
  }

  async getTableOrThrow(path: TablePath): Promise<TableRecord> {
    const table = await this.getTable(path)
    if (table === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `Table '${tablePathToString(path)}' does not exist.`)
    return table
  }

  /** The table item by id, in any state. */
  async getTableById(tableId: number): Promise<TableRecord | undefined> {
    const { pk, sk } = tableIdKey(tableId)
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeTable(tableId, item)
  }

  async getSchema(tableId: number, schemaId: number): Promise<SchemaRecord | undefined> {
    if (!Number.isSafeInteger(schemaId) || schemaId < 0) return undefined
    const { pk, sk } = schemaKey(tableId, schemaId)
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeSchema(tableId, schemaId, item)
  }

  /** The stored schema items of a table by schema id, ascending (uncommitted ones included). */
  async listSchemaItems(tableId: number): Promise<{ schemaId: number; item: VersionedItem }[]> {
    const items = await queryAll(this.store, tableItemsPk(tableId), SCHEMA_SK_PREFIX)
    return items.map(item => ({ schemaId: parseSchemaId(item.sk), item }))
  }

  /** Partitions of a table in the given states (by default the visible ones), by name. */
  async listPartitions(
    tableId: number,
    states: readonly PartitionState[] = ['READY'],
  ): Promise<PartitionRecord[]> {
    const items = await queryAll(this.store, tableItemsPk(tableId), PARTITION_SK_PREFIX)
    return items
      .map(item => decodePartition(tableId, parsePartitionName(item.sk), item))
      .filter(p => states.includes(p.state))
  }

  /** A partition by name in any state (callers check `state`). */
  async getPartition(tableId: number, partitionName: string): Promise<PartitionRecord | undefined> {
    if (typeof partitionName !== 'string' || partitionName === '' || partitionName.includes('#'))
      return undefined
    const { pk, sk } = partitionKey(tableId, partitionName)
    const item = await this.store.get(pk, sk)
    const partition = item === undefined ? undefined : decodePartition(tableId, partitionName, item)
    if (this.cached && partition?.state !== 'READY') return this.direct.getPartition(tableId, partitionName)
    return partition
  }

  /** Buckets of a non-partitioned table (partitionId null) or of one partition, by bucket id. */
  async listBuckets(tableId: number, partitionId: number | null): Promise<BucketRecord[]> {
    const items = await queryAll(this.store, tableItemsPk(tableId), bucketSkPrefix(partitionId))
    return items.map(decodeBucket)
  }

  /** Every bucket of a table, partitions included. */
  async listAllBuckets(tableId: number): Promise<BucketRecord[]> {
    return (await queryAll(this.store, tableItemsPk(tableId), BUCKET_SK_PREFIX)).map(decodeBucket)
  }

  async getBucket(ref: BucketRef): Promise<BucketRecord | undefined> {
    const { pk, sk } = bucketKey(ref)
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeBucket(item)
  }

  async getCoordinatorLease(): Promise<CoordinatorLeaseRecord | undefined> {
    const { pk, sk } = coordinatorKey()
    const item = await this.store.get(pk, sk)
    return item === undefined ? undefined : decodeCoordinatorLease(item)
  }

  /** The coordinator holding an unexpired lease, if any. */
  async activeCoordinator(): Promise<CoordinatorLeaseRecord | undefined> {
    const lease = await this.getCoordinatorLease()
    return lease !== undefined && lease.leaseExpiresAtMs > this.nowMs() ? lease : undefined
  }

  /** Every stored tablet server lease, expired ones included, by server id. */
  async listTabletServerLeases(): Promise<TabletServerLeaseRecord[]> {
    return (await queryAll(this.store, CLUSTER_PK, SERVER_SK_PREFIX)).map(decodeTabletServerLease)
  }

  /** Tablet servers whose lease has not expired: the live members of the cluster. */
  async liveTabletServers(): Promise<TabletServerLeaseRecord[]> {
    const now = this.nowMs()
    return (await this.listTabletServerLeases()).filter(l => l.leaseExpiresAtMs > now)
  }
}
