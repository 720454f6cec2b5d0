import {
  ALLOW_CREATE_KV_TABLES,
  ALLOW_CREATE_LOG_TABLES,
  type Configuration,
  DATALAKE_FORMAT,
  DEFAULT_BUCKET_NUMBER,
  DEFAULT_REPLICATION_FACTOR,
  MAX_BUCKET_NUM,
  MAX_PARTITION_NUM,
} from '@sluice/core/config'
import {
  type Catalog,
  createDatabase,
  createTable,
  dropDatabase,
  dropTable,
  storeNextSchema,
  type TableRecord,
  updateTableDescriptor,
} from '@sluice/core/control-plane'
import { assert } from '@sluice/core/errors'
import {
  databaseDescriptor,
  databaseDescriptorFromJson,
  prepareTableForCreation,
  type TableCreationContext,
  type TablePath,
  tableDescriptorFromJson,
  tableDescriptorToJson,
  validateDatabaseName,
  validateTablePath,
} from '@sluice/core/metadata'
import { type AssignmentOptions, assignReplicas } from '../assignment/assignment.js'
import type { ReplicaCleanup } from '../assignment/replica-cleanup.js'
import type { ReplicaLeadership } from '../assignment/replica-leadership.js'
import type { ReplicaNotifier } from '../assignment/replica-notifier.js'
import type { TabletServerMembership } from '../membership/membership.js'
import { retriableWhileServersJoin } from '../membership/servers-joining.js'
import type { CoordinatorContext } from '../server/coordinator-context.js'

/** Cluster settings DDL applies (Fluss's cluster options). */
export interface DdlSettings extends Omit<TableCreationContext, 'aliveTabletServers'> {
  readonly maxPartitionNum: number
}

export function ddlSettings(config: Configuration): DdlSettings {
  const dataLakeFormat = config.getOptional(DATALAKE_FORMAT)
  return {
    defaultBucketNumber: config.get(DEFAULT_BUCKET_NUMBER),
    defaultReplicationFactor: config.get(DEFAULT_REPLICATION_FACTOR),
    maxBucketNum: config.get(MAX_BUCKET_NUM),
    maxPartitionNum: config.get(MAX_PARTITION_NUM),
    allowCreateLogTables: config.get(ALLOW_CREATE_LOG_TABLES),
    allowCreateKvTables: config.get(ALLOW_CREATE_KV_TABLES),
    ...(dataLakeFormat === undefined ? {} : { dataLakeFormat }),
  }
}

export interface DdlDeps {
  readonly catalog: Catalog
  readonly context: CoordinatorContext
  readonly membership: TabletServerMembership
  /** Tells tablet servers about tables whose schema changed (UPDATE_METADATA). */
  readonly notifier?: Pick<ReplicaNotifier, 'notifyTableMetadata'>
  readonly leadership: ReplicaLeadership
  readonly cleanup: ReplicaCleanup
  readonly settings: DdlSettings
  readonly coordinatorEpoch: () => number
  readonly assignment?: AssignmentOptions
}

/**
 * Database and table DDL of the active coordinator (Fluss's CoordinatorService + MetadataManager):
 * validation with the cluster's settings and live servers, replica assignment, the crash-safe
 * catalog writes, then NotifyLeaderAndIsr for new buckets and background cleanup for drops.
 */
export class TableDdlService {
  readonly #deps: DdlDeps

  constructor(deps: DdlDeps) {
    this.#deps = deps
  }

  get settings(): DdlSettings {
    return this.#deps.settings
  }

  async createDatabase(
    name: string,
    databaseJson: Uint8Array | null,
    ignoreIfExists: boolean,
  ): Promise<void> {
    validateDatabaseName(name)
    const descriptor = databaseJson === null ? databaseDescriptor() : databaseDescriptorFromJson(databaseJson)
    await createDatabase(this.#deps.catalog, name, descriptor, ignoreIfExists)
  }

  async dropDatabase(name: string, ignoreIfNotExists: boolean, cascade: boolean): Promise<void> {
    const { tables } = await dropDatabase(this.#deps.catalog, name, { ignoreIfNotExists, cascade })
    for (const table of tables) this.#forgetAndClean(table)
  }

  async createTable(path: TablePath, tableJson: Uint8Array, ignoreIfExists: boolean): Promise<void> {
    validateTablePath(path)
    const { descriptor, assignment } = await this.#placed(tableJson).catch(async e => {
      throw await retriableWhileServersJoin(e, this.#deps.membership)
    })
    const created = await createTable(this.#deps.catalog, {
      tablePath: path,
      descriptor,
      ...(assignment === undefined ? {} : { assignment }),
      coordinatorEpoch: this.#deps.coordinatorEpoch(),
      ignoreIfExists,
    })
    if (created === undefined) return
    this.#deps.context.putTable(created.table)
    for (const bucket of created.buckets) {
      this.#deps.context.putBucket(bucket)
      this.#deps.leadership.notifyReplicas(bucket)
    }
  }

  /** The validated descriptor with defaults, and (unpartitioned) the replicas on the live servers. */
  async #placed(tableJson: Uint8Array) {
    const live = this.#deps.membership.live()
    const descriptor = prepareTableForCreation(tableDescriptorFromJson(tableJson), {
      ...this.#deps.settings,
      aliveTabletServers: live.length,
    })
    const bucketCount = descriptor.bucketCount
    const replicationFactor = descriptor.replicationFactor
    assert(
      bucketCount !== undefined && replicationFactor !== undefined,
      'system defaults set buckets and replication',
    )
    const assignment = descriptor.isPartitioned
      ? undefined
      : assignReplicas(bucketCount, replicationFactor, live.map(placement), this.#deps.assignment)
    return { descriptor, assignment }
  }

  async dropTable(path: TablePath, ignoreIfNotExists: boolean): Promise<void> {
    const dropped = await dropTable(this.#deps.catalog, path, ignoreIfNotExists)
    if (dropped !== undefined) this.#forgetAndClean(dropped)
  }

  /** Stores an altered descriptor; the caller has validated it. */
  async storeDescriptor(table: TableRecord, descriptor: TableRecord['descriptor']): Promise<void> {
    const updated = await updateTableDescriptor(this.#deps.catalog, table, descriptor)
    if (this.#deps.context.table(table.tableId) !== undefined) this.#deps.context.putTable(updated)
  }

  /**
   * Stores a table's next schema (ALTER TABLE column changes, validated by the caller): the schema
   * item, then the table item (the commit point). Live tablet servers are then told with
   * UPDATE_METADATA, so that projected fetches and primary-key changelogs use it at once; a server
   * that misses the notice still loads a schema when a batch or a reader names it.
   */
  async storeSchema(table: TableRecord, descriptor: TableRecord['descriptor']): Promise<TableRecord> {
    const updated = await storeNextSchema(this.#deps.catalog, table, descriptor)
    if (this.#deps.context.table(table.tableId) !== undefined) this.#deps.context.putTable(updated)
    const notifier = this.#deps.notifier
    if (notifier !== undefined) {
      const metadata = tableMetadataOf(updated)
      for (const server of this.#deps.membership.live())
        notifier.notifyTableMetadata(server.serverId, metadata)
    }
    return updated
  }

  #forgetAndClean(table: TableRecord): void {
    this.#deps.context.removeTable(table.tableId)
    this.#deps.cleanup.cleanupTable(table)
  }
}

export function placement(s: { serverId: number; rack: string | null }): { id: number; rack: string | null } {
  return { id: s.serverId, rack: s.rack }
}

/** The UPDATE_METADATA entry of a table (its buckets are left out: only its schema changed). */
function tableMetadataOf(t: TableRecord) {
  return {
    tablePath: { databaseName: t.tablePath.databaseName, tableName: t.tablePath.tableName },
    tableId: t.tableId,
    schemaId: t.schemaId,
    tableJson: Buffer.from(tableDescriptorToJson(t.descriptor)),
    createdTime: t.createdTimeMs,
    modifiedTime: t.modifiedTimeMs,
  }
}
