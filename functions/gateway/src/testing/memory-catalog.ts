import { type SchemaInfo, schemaChangesOfTableChanges, type TableChanges } from '@sluice/client'
import type { Row } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import {
  applySchemaChanges,
  applySystemDefaults,
  ColumnMapping,
  type DatabaseDescriptor,
  type DatabaseInfo,
  partitionName,
  partitionSpec,
  resolvePartitionSpec,
  type TableDescriptor,
  TableInfo,
  type TablePath,
  validatePartitionSpec,
  validateTableDescriptor,
} from '@sluice/core/metadata'
import type { Clock } from '@sluice/core/util'
import type { PartitionInfo, PartitionSpecValues } from '../backend/gateway-backend.js'

export interface MemoryLogRecord {
  readonly offset: number
  readonly timestampMs: number
  readonly changeType: 'append_only' | 'insert' | 'update_before' | 'update_after' | 'delete'
  readonly row: Row
}

/** One table's metadata and data. */
export class MemoryTable {
  readonly partitions = new Map<string, PartitionInfo>()
  /** Log records per `partitionId:bucket`. */
  readonly logs = new Map<string, MemoryLogRecord[]>()
  /** Current rows of a primary-key table by `partitionId:keyHex`. */
  readonly kv = new Map<string, Row>()
  /** Every schema version, oldest first. */
  readonly schemas: SchemaInfo[]

  constructor(public info: TableInfo) {
    this.schemas = [{ schemaId: info.schemaId, schema: info.schema }]
  }

  /**
   * The table with its next schema or properties. Stored rows are mapped to the new schema by
   * column id (the twin keeps one schema's rows; the cluster reads older rows by id instead).
   */
  alter(changes: TableChanges, nowMs: number): void {
    const columnChanges = schemaChangesOfTableChanges(changes)
    const propertyChanges = Object.keys(changes.set ?? {}).length + (changes.reset?.length ?? 0)
    if (columnChanges.length > 0 && propertyChanges > 0) {
      throw new FlussError(
        'INVALID_ALTER_TABLE_EXCEPTION',
        'Table alteration can only be applied to one of the following: table properties or table schema.',
      )
    }
    const old = this.info
    const current = old.toTableDescriptor()
    if (columnChanges.length === 0) {
      const properties = { ...current.properties, ...changes.set }
      for (const key of changes.reset ?? []) delete properties[key]
      const next = current.withProperties(properties)
      this.info = TableInfo.of(old.tablePath, old.tableId, old.schemaId, next, old.createdTime, nowMs)
      return
    }
    const next = applySchemaChanges(current, columnChanges)
    if (next === undefined) return
    const info = TableInfo.of(old.tablePath, old.tableId, old.schemaId + 1, next, old.createdTime, nowMs)
    const mapping = ColumnMapping.between(old.schema, info.schema)
    for (const [key, records] of this.logs) {
      this.logs.set(
        key,
        records.map(r => ({ ...r, row: mapping.map(r.row) })),
      )
    }
    for (const [key, row] of this.kv) this.kv.set(key, mapping.map(row))
    this.info = info
    this.schemas.push({ schemaId: info.schemaId, schema: info.schema })
  }
}

const DEFAULT_BUCKETS = 1

/** Databases, tables and partitions held in memory, with Fluss's errors for each misuse. */
export class MemoryCatalog {
  readonly databases = new Map<string, DatabaseInfo>()
  readonly tables = new Map<string, MemoryTable>()
  #nextTableId = 1
  #nextPartitionId = 1

  constructor(private readonly clock: Clock) {}

  database(name: string): DatabaseInfo {
    const db = this.databases.get(name)
    if (db === undefined) throw new FlussError('DATABASE_NOT_EXIST', `Database ${name} does not exist.`)
    return db
  }

  createDatabase(name: string, descriptor: DatabaseDescriptor, ignoreIfExists: boolean): void {
    if (this.databases.has(name)) {
      if (ignoreIfExists) return
      throw new FlussError('DATABASE_ALREADY_EXIST', `Database ${name} already exists.`)
    }
    const now = this.clock.nowMs()
    this.databases.set(name, { databaseName: name, descriptor, createdTime: now, modifiedTime: now })
  }

  dropDatabase(name: string, ignoreIfNotExists: boolean, cascade: boolean): void {
    if (!this.databases.has(name)) {
      if (ignoreIfNotExists) return
      throw new FlussError('DATABASE_NOT_EXIST', `Database ${name} does not exist.`)
    }
    const tables = this.tableNames(name)
    if (tables.length > 0 && !cascade)
      throw new FlussError('DATABASE_NOT_EMPTY', `Database ${name} is not empty.`)
    for (const t of tables) this.tables.delete(`${name}.${t}`)
    this.databases.delete(name)
  }

  tableNames(database: string): string[] {
    this.database(database)
    return [...this.tables.values()]
      .filter(t => t.info.tablePath.databaseName === database)
      .map(t => t.info.tablePath.tableName)
  }

  table(path: TablePath): MemoryTable {
    const t = this.tables.get(`${path.databaseName}.${path.tableName}`)
    if (t === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `Table ${path.databaseName}.${path.tableName} does not exist.`)
    return t
  }

  createTable(path: TablePath, descriptor: TableDescriptor, ignoreIfExists: boolean): void {
    this.database(path.databaseName)
    if (this.tables.has(`${path.databaseName}.${path.tableName}`)) {
      if (ignoreIfExists) return
      throw new FlussError(
        'TABLE_ALREADY_EXIST',
        `Table ${path.databaseName}.${path.tableName} already exists.`,
      )
    }
    const withDefaults = applySystemDefaults(descriptor, {
      defaultBucketNumber: DEFAULT_BUCKETS,
      defaultReplicationFactor: 1,
    })
    const d =
      withDefaults.bucketCount === undefined ? withDefaults.withBucketCount(DEFAULT_BUCKETS) : withDefaults
    validateTableDescriptor(d, { maxBucketNum: 128_000 })
    const now = this.clock.nowMs()
    const info = TableInfo.of(path, this.#nextTableId++, 1, d, now, now)
    this.tables.set(`${path.databaseName}.${path.tableName}`, new MemoryTable(info))
  }

  alterTable(path: TablePath, changes: TableChanges, ignoreIfNotExists: boolean): void {
    const t = this.tables.get(`${path.databaseName}.${path.tableName}`)
    if (t === undefined && ignoreIfNotExists) return
    this.table(path).alter(changes, this.clock.nowMs())
  }

  dropTable(path: TablePath, ignoreIfNotExists: boolean): void {
    if (!this.tables.delete(`${path.databaseName}.${path.tableName}`) && !ignoreIfNotExists) this.table(path)
  }

  createPartition(path: TablePath, spec: PartitionSpecValues, ignoreIfExists: boolean): void {
    const t = this.table(path)
    const name = partitionName(
      validatePartitionSpec(t.info.tablePath, t.info.partitionKeys, partitionSpec(spec), true),
    )
    if (t.partitions.has(name)) {
      if (ignoreIfExists) return
      throw new FlussError('PARTITION_ALREADY_EXISTS', `Partition ${name} already exists.`)
    }
    t.partitions.set(name, { partitionId: this.#nextPartitionId++, partitionName: name, spec: { ...spec } })
  }

  dropPartition(path: TablePath, spec: PartitionSpecValues, ignoreIfNotExists: boolean): void {
    const t = this.table(path)
    const name = partitionName(resolvePartitionSpec(t.info.partitionKeys, partitionSpec(spec)))
    const p = t.partitions.get(name)
    if (p === undefined) {
      if (ignoreIfNotExists) return
      throw new FlussError('PARTITION_NOT_EXISTS', `Partition ${name} does not exist.`)
    }
    t.partitions.delete(name)
    for (const key of [...t.logs.keys()]) if (key.startsWith(`${p.partitionId}:`)) t.logs.delete(key)
    for (const key of [...t.kv.keys()]) if (key.startsWith(`${p.partitionId}:`)) t.kv.delete(key)
  }
}
