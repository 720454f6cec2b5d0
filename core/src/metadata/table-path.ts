import { FlussError } from '../errors/index.js'

/**
 * Identity of tables, partitions and buckets (Fluss's `TablePath`, `PhysicalTablePath`,
 * `TableBucket`, `TablePartition`). Ids are JavaScript numbers: Fluss's int64 ids are counters
 * that stay far below 2^53; the RPC layer converts at the boundary.
 */

/** Longest database, table or partition-value name (names become directory names). */
export const MAX_NAME_LENGTH = 200
/** Prefix reserved for internal databases, tables and partitions. */
export const INTERNAL_NAME_PREFIX = '__'

export interface TablePath {
  readonly databaseName: string
  readonly tableName: string
}

export function tablePath(databaseName: string, tableName: string): TablePath {
  return { databaseName, tableName }
}

/** `db.table`, as Fluss prints a table path. */
export function tablePathToString(p: TablePath): string {
  return `${p.databaseName}.${p.tableName}`
}

export function tablePathEquals(a: TablePath, b: TablePath): boolean {
  return a.databaseName === b.databaseName && a.tableName === b.tableName
}

/** Why `identifier` is not a valid database/table/partition-value name, or undefined when it is. */
export function detectInvalidName(identifier: string | null | undefined): string | undefined {
  if (identifier === null || identifier === undefined) return 'null string is not allowed'
  if (identifier === '') return 'the empty string is not allowed'
  if (identifier === '.') return "'.' is not allowed"
  if (identifier === '..') return "'..' is not allowed"
  if (identifier.length > MAX_NAME_LENGTH) {
    return `the length of '${identifier}' is longer than the max allowed length ${MAX_NAME_LENGTH}`
  }
  if (!/^[A-Za-z0-9_-]+$/.test(identifier)) {
    return `'${identifier}' contains one or more characters other than ASCII alphanumerics, '_' and '-'`
  }
  return undefined
}

/** Why `identifier` uses the reserved `__` prefix, or undefined. */
export function detectReservedPrefix(identifier: string): string | undefined {
  if (!identifier.startsWith(INTERNAL_NAME_PREFIX)) return undefined
  return (
    `'${INTERNAL_NAME_PREFIX}' is not allowed as prefix, since it is reserved for internal ` +
    'databases/internal tables/internal partitions in Fluss server'
  )
}

/** Throws INVALID_DATABASE_EXCEPTION for an invalid database name. */
export function validateDatabaseName(databaseName: string): void {
  const problem = detectInvalidName(databaseName) ?? detectReservedPrefix(databaseName)
  if (problem !== undefined) {
    throw new FlussError('INVALID_DATABASE_EXCEPTION', `Database name ${databaseName} is invalid: ${problem}`)
  }
}

/** Throws INVALID_TABLE_EXCEPTION for an invalid table name. */
export function validateTableName(tableName: string): void {
  const problem = detectInvalidName(tableName) ?? detectReservedPrefix(tableName)
  if (problem !== undefined) {
    throw new FlussError('INVALID_TABLE_EXCEPTION', `Table name ${tableName} is invalid: ${problem}`)
  }
}

/** Validates both names: the database first (INVALID_DATABASE_EXCEPTION), then the table. */
export function validateTablePath(p: TablePath): void {
  validateDatabaseName(p.databaseName)
  validateTableName(p.tableName)
}

/** A table, or one partition of a partitioned table. */
export interface PhysicalTablePath {
  readonly tablePath: TablePath
  readonly partitionName?: string
}

export function physicalTablePath(path: TablePath, partitionName?: string): PhysicalTablePath {
  return partitionName === undefined ? { tablePath: path } : { tablePath: path, partitionName }
}

/** `db.table` or `db.table(p=20240101)`, as Fluss prints it. */
export function physicalTablePathToString(p: PhysicalTablePath): string {
  const base = tablePathToString(p.tablePath)
  return p.partitionName === undefined ? base : `${base}(p=${p.partitionName})`
}

/** One bucket of a table, or of one partition of a partitioned table. */
export interface TableBucket {
  readonly tableId: number
  readonly partitionId?: number
  readonly bucket: number
}

export function tableBucket(tableId: number, bucket: number, partitionId?: number): TableBucket {
  return partitionId === undefined ? { tableId, bucket } : { tableId, partitionId, bucket }
}

/** A stable string key for maps and storage keys: `<tableId>:<partitionId or ->:<bucket>`. */
export function tableBucketKey(b: TableBucket): string {
  return `${b.tableId}:${b.partitionId ?? '-'}:${b.bucket}`
}

/** Reverses `tableBucketKey`; throws INVALID_REQUEST for a malformed key. */
export function parseTableBucketKey(key: string): TableBucket {
  const m = /^(\d+):(-|\d+):(\d+)$/.exec(key)
  if (!m) throw new FlussError('INVALID_REQUEST', `Malformed table bucket key '${key}'.`)
  return tableBucket(Number(m[1]), Number(m[3]), m[2] === '-' ? undefined : Number(m[2]))
}

export function tableBucketEquals(a: TableBucket, b: TableBucket): boolean {
  return a.tableId === b.tableId && a.bucket === b.bucket && a.partitionId === b.partitionId
}

/** `TableBucket{tableId=1, partitionId=2, bucket=0}`, as Fluss prints it. */
export function tableBucketToString(b: TableBucket): string {
  const partition = b.partitionId === undefined ? '' : `, partitionId=${b.partitionId}`
  return `TableBucket{tableId=${b.tableId}${partition}, bucket=${b.bucket}}`
}

export interface TablePartition {
  readonly tableId: number
  readonly partitionId: number
}
