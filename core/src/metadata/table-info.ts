import { Configuration } from '../config/index.js'
import { FlussError } from '../errors/index.js'
import type { RowType } from '../types/data-type.js'
import type { Schema } from './schema.js'
import { autoPartitionStrategy } from './table-config.js'
import { physicalPrimaryKeys, TableDescriptor } from './table-descriptor.js'
import type { TablePath } from './table-path.js'

/** A created table (Fluss's `TableInfo`): its descriptor plus id, schema id and times. */
export class TableInfo {
  readonly primaryKeys: readonly string[]
  /** Primary key minus partition keys: the key within one partition. */
  readonly physicalPrimaryKeys: readonly string[]
  /** The typed view of `properties`. */
  readonly tableConfig: Configuration

  constructor(
    readonly tablePath: TablePath,
    readonly tableId: number,
    readonly schemaId: number,
    readonly schema: Schema,
    readonly bucketKeys: readonly string[],
    readonly partitionKeys: readonly string[],
    readonly numBuckets: number,
    readonly properties: Readonly<Record<string, string>>,
    readonly customProperties: Readonly<Record<string, string>>,
    readonly comment: string | undefined,
    readonly createdTime: number,
    readonly modifiedTime: number,
    readonly remoteDataDir?: string,
  ) {
    this.primaryKeys = schema.primaryKeyColumnNames
    this.physicalPrimaryKeys = physicalPrimaryKeys(this.primaryKeys, partitionKeys)
    this.tableConfig = new Configuration(properties)
  }

  /** Builds the info of a created table; the descriptor must carry a bucket count. */
  static of(
    path: TablePath,
    tableId: number,
    schemaId: number,
    descriptor: TableDescriptor,
    createdTime: number,
    modifiedTime: number,
    remoteDataDir?: string,
  ): TableInfo {
    const numBuckets = descriptor.bucketCount
    if (numBuckets === undefined) {
      throw new FlussError('INVALID_TABLE_EXCEPTION', 'Bucket count is required for creating table info.')
    }
    return new TableInfo(
      path,
      tableId,
      schemaId,
      descriptor.schema,
      descriptor.bucketKeys,
      descriptor.partitionKeys,
      numBuckets,
      descriptor.properties,
      descriptor.customProperties,
      descriptor.comment,
      createdTime,
      modifiedTime,
      remoteDataDir,
    )
  }

  get rowType(): RowType {
    return this.schema.rowType
  }

  get hasPrimaryKey(): boolean {
    return this.primaryKeys.length > 0
  }

  get hasBucketKey(): boolean {
    return this.bucketKeys.length > 0
  }

  /** Bucket keys are the default: the physical primary key, or none for log tables. */
  get isDefaultBucketKey(): boolean {
    const expected = this.hasPrimaryKey ? this.physicalPrimaryKeys : []
    return expected.length === this.bucketKeys.length && expected.every((k, i) => k === this.bucketKeys[i])
  }

  get isPartitioned(): boolean {
    return this.partitionKeys.length > 0
  }

  get isAutoPartitioned(): boolean {
    return this.isPartitioned && autoPartitionStrategy(this.tableConfig).enabled
  }

  toTableDescriptor(): TableDescriptor {
    return new TableDescriptor({
      schema: this.schema,
      partitionKeys: this.partitionKeys,
      distribution: { bucketCount: this.numBuckets, bucketKeys: this.bucketKeys },
      properties: this.properties,
      customProperties: this.customProperties,
      ...(this.comment === undefined ? {} : { comment: this.comment }),
    })
  }
}

/** What a database is made of (Fluss's `DatabaseDescriptor`). */
export interface DatabaseDescriptor {
  readonly comment?: string
  readonly customProperties: Readonly<Record<string, string>>
}

export function databaseDescriptor(
  customProperties: Readonly<Record<string, string>> = {},
  comment?: string,
): DatabaseDescriptor {
  const props = Object.freeze(Object.fromEntries(Object.entries(customProperties)))
  return comment === undefined ? { customProperties: props } : { comment, customProperties: props }
}

export interface DatabaseInfo {
  readonly databaseName: string
  readonly descriptor: DatabaseDescriptor
  readonly createdTime: number
  readonly modifiedTime: number
}
