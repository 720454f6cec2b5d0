import { schemaChangeFields } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import {
  type DatabaseDescriptor,
  type DatabaseInfo,
  databaseDescriptor,
  databaseDescriptorFromJson,
  databaseDescriptorToJson,
  type Schema,
  type SchemaChange,
  schemaFromJson,
  type TableDescriptor,
  TableInfo,
  type TablePath,
  tableDescriptorFromJson,
  tableDescriptorToJson,
  validateDatabaseName,
  validateTablePath,
} from '@sluice/core/metadata'
import type { AclBinding, AclBindingFilter } from '@sluice/core/security'
import type { DataType } from '@sluice/core/types'
import type { BucketLocation, ServerNode } from '../metadata/cluster.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { AclAdmin, type AclDropResult, type AclResult } from './acls.js'
import { listBucketOffsets, type OffsetSpec } from './list-offsets.js'
import {
  type PartitionInfo,
  type PartitionSpecInput,
  partitionInfoOf,
  toPbPartitionSpec,
} from './partition-info.js'

/** A schema version of a table. */
export interface SchemaInfo {
  readonly schemaId: number
  readonly schema: Schema
}

const pbPath = (p: TablePath) => ({ databaseName: p.databaseName, tableName: p.tableName })

/**
 * Cluster administration (Fluss's `Admin`): databases, tables, partitions, offsets and ACLs. DDL goes to the
 * coordinator named in the metadata; read-only calls go to any server. Every failure is a FlussError
 * carrying the server's Fluss error code.
 */
/**
 * What `alterTable` changes: properties (`set`, `reset`) or columns, not both at once (Fluss's rule).
 * Column changes apply in this order: every add, drop, rename, then modify.
 *
 * - `addColumns`: nullable columns at the end (Fluss), with a comment and a write default.
 * - `dropColumns`: by name; never a key column or the versioned merge engine's version column.
 * - `renameColumns`: `name` to `newName`; never a key column.
 * - `modifyColumns`: a widening `type` (INT → BIGINT, FLOAT → DOUBLE, DECIMAL precision up, CHAR
 *   length up or to STRING; NOT NULL may become nullable), a `comment`, a `defaultValue` (text, see
 *   core's `default-value.ts`); null removes the comment or default, left out keeps it.
 *
 * Every change keeps column ids: rows written before it are read by id (see docs/design.md). An
 * unsafe change is refused with INVALID_ALTER_TABLE_EXCEPTION and nothing changes.
 */
export interface TableChanges {
  readonly set?: Readonly<Record<string, string>>
  readonly reset?: readonly string[]
  readonly addColumns?: readonly {
    readonly name: string
    readonly type: DataType
    readonly comment?: string
    readonly defaultValue?: string
  }[]
  readonly dropColumns?: readonly string[]
  readonly renameColumns?: readonly { readonly name: string; readonly newName: string }[]
  readonly modifyColumns?: readonly {
    readonly name: string
    readonly type?: DataType
    readonly comment?: string | null
    readonly defaultValue?: string | null
  }[]
}

/** The column changes of `changes` in core's form. */
export function schemaChangesOfTableChanges(changes: TableChanges): SchemaChange[] {
  return [
    ...(changes.addColumns ?? []).map(
      (c): SchemaChange => ({
        kind: 'add',
        name: c.name,
        dataType: c.type,
        ...(c.comment === undefined ? {} : { comment: c.comment }),
        ...(c.defaultValue === undefined ? {} : { defaultValue: c.defaultValue }),
      }),
    ),
    ...(changes.dropColumns ?? []).map((name): SchemaChange => ({ kind: 'drop', name })),
    ...(changes.renameColumns ?? []).map(
      (c): SchemaChange => ({ kind: 'rename', name: c.name, newName: c.newName }),
    ),
    ...(changes.modifyColumns ?? []).map(
      (c): SchemaChange => ({
        kind: 'modify',
        name: c.name,
        ...(c.type === undefined ? {} : { dataType: c.type }),
        ...(c.comment === undefined ? {} : { comment: c.comment }),
        ...(c.defaultValue === undefined ? {} : { defaultValue: c.defaultValue }),
      }),
    ),
  ]
}

export class Admin {
  readonly #metadata: MetadataUpdater
  readonly #requestTimeoutMs: number
  readonly #acls: AclAdmin

  constructor(metadata: MetadataUpdater, requestTimeoutMs: number) {
    this.#metadata = metadata
    this.#requestTimeoutMs = requestTimeoutMs
    this.#acls = new AclAdmin(metadata)
  }

  /** Creates ACL bindings (needs ALTER on each resource; a table's: its database); one result each. */
  createAcls(bindings: readonly AclBinding[]): Promise<AclResult[]> {
    return this.#acls.createAcls(bindings)
  }

  /** The ACL bindings matching `filter` (default: all) on resources this principal may describe. */
  listAcls(filter?: AclBindingFilter): Promise<AclBinding[]> {
    return this.#acls.listAcls(filter)
  }

  /** Drops the bindings matching each filter; one result per filter. */
  dropAcls(filters: readonly AclBindingFilter[]): Promise<AclDropResult[]> {
    return this.#acls.dropAcls(filters)
  }

  /** The coordinator and tablet servers currently known. */
  async getServerNodes(): Promise<ServerNode[]> {
    const cluster = await this.#metadata.update({})
    const nodes = [...cluster.tabletServers.values()]
    return cluster.coordinator === undefined ? nodes : [cluster.coordinator, ...nodes]
  }

  async createDatabase(
    name: string,
    descriptor: DatabaseDescriptor = databaseDescriptor(),
    ignoreIfExists = false,
  ): Promise<void> {
    validateDatabaseName(name)
    const databaseJson = Buffer.from(databaseDescriptorToJson(descriptor))
    await this.#metadata.requestCoordinator('CREATE_DATABASE', {
      databaseName: name,
      ignoreIfExists,
      databaseJson,
    })
  }

  async dropDatabase(name: string, ignoreIfNotExists = false, cascade = false): Promise<void> {
    await this.#metadata.requestCoordinator('DROP_DATABASE', {
      databaseName: name,
      ignoreIfNotExists,
      cascade,
    })
  }

  async listDatabases(): Promise<string[]> {
    const response = await this.#metadata.requestAnyServer('LIST_DATABASES', { includeSummary: false })
    return response.databaseName
  }

  async databaseExists(name: string): Promise<boolean> {
    const response = await this.#metadata.requestAnyServer('DATABASE_EXISTS', { databaseName: name })
    return response.exists
  }

  async getDatabaseInfo(name: string): Promise<DatabaseInfo> {
    const response = await this.#metadata.requestAnyServer('GET_DATABASE_INFO', { databaseName: name })
    return {
      databaseName: name,
      descriptor: databaseDescriptorFromJson(response.databaseJson),
      createdTime: response.createdTime,
      modifiedTime: response.modifiedTime,
    }
  }

  async createTable(path: TablePath, descriptor: TableDescriptor, ignoreIfExists = false): Promise<void> {
    validateTablePath(path)
    const tableJson = Buffer.from(tableDescriptorToJson(descriptor))
    await this.#metadata.requestCoordinator('CREATE_TABLE', {
      tablePath: pbPath(path),
      tableJson,
      ignoreIfExists,
    })
  }

  /**
   * ALTER TABLE (Fluss's `alterTable`): sets (`set`) and resets (`reset`) table properties, or
   * changes columns (see `TableChanges`). A column change stores the table's next schema id; tables
   * got before it keep their schema (their writers keep working) until got again.
   */
  async alterTable(path: TablePath, changes: TableChanges, ignoreIfNotExists = false): Promise<void> {
    const columnChanges = schemaChangesOfTableChanges(changes)
    await this.#metadata.requestCoordinator('ALTER_TABLE', {
      tablePath: pbPath(path),
      ignoreIfNotExists,
      configChanges: [
        ...Object.entries(changes.set ?? {}).map(([configKey, configValue]) => ({
          configKey,
          configValue,
          opType: 0,
        })),
        ...(changes.reset ?? []).map(configKey => ({ configKey, opType: 1 })),
      ],
      ...schemaChangeFields(columnChanges),
    })
    this.#metadata.forgetTable(path)
    if (columnChanges.length > 0) {
      // Tables got on this connection from now on have the new schema (see getTableInfo).
      const current = await this.#metadata
        .requestCoordinator('GET_TABLE_INFO', { tablePath: pbPath(path) })
        .catch(() => undefined)
      if (current !== undefined) this.#metadata.noteSchemaId(path, current.schemaId)
    }
  }

  async dropTable(path: TablePath, ignoreIfNotExists = false): Promise<void> {
    await this.#metadata.requestCoordinator('DROP_TABLE', { tablePath: pbPath(path), ignoreIfNotExists })
    this.#metadata.forgetTable(path)
  }

  async getTableInfo(path: TablePath): Promise<TableInfo> {
    const request = { tablePath: pbPath(path) }
    let response = await this.#metadata.requestAnyServer('GET_TABLE_INFO', request)
    // A server that has not learned this connection's own ALTER yet: the coordinator has.
    if (response.schemaId < this.#metadata.minSchemaId(path))
      response = await this.#metadata.requestCoordinator('GET_TABLE_INFO', request)
    const descriptor = tableDescriptorFromJson(response.tableJson)
    return TableInfo.of(
      path,
      response.tableId,
      response.schemaId,
      descriptor,
      response.createdTime,
      response.modifiedTime,
    )
  }

  async tableExists(path: TablePath): Promise<boolean> {
    const response = await this.#metadata.requestAnyServer('TABLE_EXISTS', { tablePath: pbPath(path) })
    return response.exists
  }

  async listTables(databaseName: string): Promise<string[]> {
    const response = await this.#metadata.requestAnyServer('LIST_TABLES', { databaseName })
    return response.tableName
  }

  /** Every schema version of the table, oldest first (schema ids 1 up to the current one). */
  async getTableSchemas(path: TablePath): Promise<SchemaInfo[]> {
    const latest = await this.getTableSchema(path)
    const older = Array.from({ length: latest.schemaId - 1 }, (_, i) => i + 1)
    const found = await Promise.all(
      older.map(id =>
        this.getTableSchema(path, id).catch(e => {
          // A table created by another Fluss version may start above 1.
          if (e instanceof FlussError && e.is('SCHEMA_NOT_EXIST')) return undefined
          throw e
        }),
      ),
    )
    return [...found.filter((s): s is SchemaInfo => s !== undefined), latest]
  }

  /** A schema of the table: the latest, or the version `schemaId`. */
  async getTableSchema(path: TablePath, schemaId?: number): Promise<SchemaInfo> {
    const request = { tablePath: pbPath(path), schemaId: schemaId ?? null }
    const response = await this.#metadata.requestAnyServer('GET_TABLE_SCHEMA', request)
    return { schemaId: response.schemaId, schema: schemaFromJson(response.schemaJson, 'SCHEMA_NOT_EXIST') }
  }

  /** Partitions of a partitioned table, optionally only those matching a partial spec. */
  async listPartitionInfos(path: TablePath, partialSpec?: PartitionSpecInput): Promise<PartitionInfo[]> {
    const request = {
      tablePath: pbPath(path),
      partialPartitionSpec: partialSpec === undefined ? null : toPbPartitionSpec(partialSpec),
    }
    const response = await this.#metadata.requestAnyServer('LIST_PARTITION_INFOS', request)
    return response.partitionsInfo.map(partitionInfoOf)
  }

  async createPartition(path: TablePath, spec: PartitionSpecInput, ignoreIfExists = false): Promise<void> {
    const request = {
      tablePath: pbPath(path),
      partitionSpec: toPbPartitionSpec(spec),
      ignoreIfNotExists: ignoreIfExists,
    }
    await this.#metadata.requestCoordinator('CREATE_PARTITION', request)
  }

  async dropPartition(path: TablePath, spec: PartitionSpecInput, ignoreIfNotExists = false): Promise<void> {
    const request = { tablePath: pbPath(path), partitionSpec: toPbPartitionSpec(spec), ignoreIfNotExists }
    await this.#metadata.requestCoordinator('DROP_PARTITION', request)
  }

  /**
   * One offset per bucket (bucket id → offset) of a table, or of one partition of a partitioned
   * table: 'earliest' (log start), 'latest' (high watermark) or the first offset committed at or
   * after `{ timestamp }`.
   */
  async listOffsets(
    path: TablePath,
    buckets: readonly number[],
    spec: OffsetSpec,
    partitionName?: string,
  ): Promise<Map<number, number>> {
    const info = await this.getTableInfo(path)
    for (const b of buckets) {
      if (!Number.isInteger(b) || b < 0 || b >= info.numBuckets) {
        throw new FlussError(
          'INVALID_REQUEST',
          `Bucket ${b} is outside 0..${info.numBuckets - 1} of ${path.databaseName}.${path.tableName}`,
        )
      }
    }
    const partitionId = await this.#partitionId(info, partitionName)
    const target =
      partitionId === undefined
        ? { tablePath: path, tableId: info.tableId }
        : { tablePath: path, tableId: info.tableId, partitionId }
    return listBucketOffsets(this.#metadata, target, buckets, spec, this.#requestTimeoutMs)
  }

  /**
   * Where every bucket of the table (or partition) lives, from fresh metadata: leader, leader epoch
   * and replicas (`leader` undefined while none is elected).
   */
  async getBucketLocations(path: TablePath, partitionName?: string): Promise<BucketLocation[]> {
    const info = await this.getTableInfo(path)
    const partitionId = await this.#partitionId(info, partitionName)
    const cluster = await this.#metadata.update({
      tables: [path],
      ...(partitionName === undefined ? {} : { partitions: [{ tablePath: path, partitionName }] }),
    })
    return Array.from(
      { length: info.numBuckets },
      (_, bucket) =>
        cluster.bucketLocation({
          tableId: info.tableId,
          bucket,
          ...(partitionId === undefined ? {} : { partitionId }),
        }) ?? {
          bucket,
          leader: undefined,
          leaderEpoch: undefined,
          replicas: [],
        },
    )
  }

  async #partitionId(info: TableInfo, partitionName: string | undefined): Promise<number | undefined> {
    if (!info.isPartitioned) {
      if (partitionName === undefined) return undefined
      throw new FlussError(
        'TABLE_NOT_PARTITIONED_EXCEPTION',
        `Table ${info.tablePath.databaseName}.${info.tablePath.tableName} is not partitioned`,
      )
    }
    if (partitionName === undefined) {
      throw new FlussError(
        'PARTITION_SPEC_INVALID_EXCEPTION',
        'A partition name is required for a partitioned table',
      )
    }
    const known = this.#metadata.cluster.partitionId(info.tableId, partitionName)
    if (known !== undefined) return known
    const cluster = await this.#metadata.update({
      tables: [info.tablePath],
      partitions: [{ tablePath: info.tablePath, partitionName }],
    })
    const id = cluster.partitionId(info.tableId, partitionName)
    if (id === undefined)
      throw new FlussError(
        'PARTITION_NOT_EXISTS',
        `Partition ${partitionName} of ${info.tablePath.databaseName}.${info.tablePath.tableName} does not exist`,
      )
    return id
  }
}
