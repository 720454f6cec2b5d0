import { TABLE_DATALAKE_ENABLED } from '@sluice/core/config'
import { type Catalog, tableInfoOf } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'

/** A partition of a partitioned table, as tiering names it in `fluss-offsets`. */
export interface TieringPartition {
  readonly partitionId: number
  readonly partitionName: string
}

/** What tiering needs to know about Fluss tables (the catalog over the MetaStore in production). */
export interface TieringMetadata {
  /** Tables with `table.datalake.enabled=true`. */
  listLakeTables(): Promise<TableInfo[]>
  getTable(path: TablePath): Promise<TableInfo | undefined>
  /** The live partitions of a partitioned table (none for other tables). */
  listPartitions(table: TableInfo): Promise<TieringPartition[]>
  /** The row type of one of the table's schema ids (batches carry the id they were written in). */
  rowTypeOf(table: TableInfo, schemaId: number): Promise<RowType>
}

export function isLakeEnabled(table: TableInfo): boolean {
  return table.tableConfig.get(TABLE_DATALAKE_ENABLED) === true
}

/** Tiering metadata read from the catalog (DynamoDB items). */
export function catalogTieringMetadata(catalog: Catalog): TieringMetadata {
  const schemas = new Map<string, RowType>()
  return {
    async listLakeTables() {
      const out: TableInfo[] = []
      for (const db of await catalog.listDatabases()) {
        for (const name of await catalog.listTables(db.databaseName)) {
          const table = await catalog.getTable({ databaseName: db.databaseName, tableName: name })
          if (table === undefined || table.state !== 'READY') continue
          const info = tableInfoOf(table)
          if (isLakeEnabled(info)) out.push(info)
        }
      }
      return out
    },
    async getTable(path) {
      const table = await catalog.getTable(path)
      return table === undefined ? undefined : tableInfoOf(table)
    },
    async listPartitions(table) {
      if (!table.isPartitioned) return []
      const partitions = await catalog.listPartitions(table.tableId)
      return partitions.map(p => ({ partitionId: p.partitionId, partitionName: p.partitionName }))
    },
    async rowTypeOf(table, schemaId) {
      if (schemaId === table.schemaId) return table.rowType
      const key = `${table.tableId}:${schemaId}`
      const known = schemas.get(key)
      if (known !== undefined) return known
      const record = await catalog.getSchema(table.tableId, schemaId)
      if (record === undefined) {
        throw new FlussError('SCHEMA_NOT_EXIST', `table ${table.tableId} has no schema ${schemaId}`)
      }
      if (schemas.size >= 1024) schemas.clear()
      schemas.set(key, record.schema.rowType)
      return record.schema.rowType
    },
  }
}

/** Tiering metadata over fixed tables (tests, tools): partitions as given, only the current schema. */
export function staticTieringMetadata(
  tables: readonly TableInfo[],
  partitionsOf: (table: TableInfo) => readonly TieringPartition[] = () => [],
): TieringMetadata {
  return {
    listLakeTables: async () => tables.filter(isLakeEnabled),
    getTable: async path =>
      tables.find(
        t => t.tablePath.databaseName === path.databaseName && t.tablePath.tableName === path.tableName,
      ),
    listPartitions: async table => [...partitionsOf(table)],
    rowTypeOf: async (table, schemaId) => {
      if (schemaId !== table.schemaId)
        throw new FlussError('SCHEMA_NOT_EXIST', `table ${table.tableId} has no schema ${schemaId}`)
      return table.rowType
    },
  }
}
