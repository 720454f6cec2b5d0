/**
 * The Iceberg v2 model as stored: table metadata objects use the JSON member names of the spec, so
 * that members written by other writers (statistics, extra properties) survive a rewrite. Snapshot
 * ids are bigint everywhere, because other writers create ids above 2^53.
 */

export const FORMAT_VERSION = 2

/** Iceberg primitive type strings (`decimal(10, 2)`, `fixed[16]` included). */
export type IcebergPrimitive = string

/** An Iceberg type as table metadata stores it: a primitive's name, or a list, map or struct. */
export type IcebergType = IcebergPrimitive | IcebergListType | IcebergMapType | IcebergStructType

export interface IcebergListType {
  readonly type: 'list'
  readonly 'element-id': number
  readonly element: IcebergType
  readonly 'element-required': boolean
}

export interface IcebergMapType {
  readonly type: 'map'
  readonly 'key-id': number
  readonly key: IcebergType
  readonly 'value-id': number
  readonly value: IcebergType
  readonly 'value-required': boolean
}

export interface IcebergStructType {
  readonly type: 'struct'
  readonly fields: readonly IcebergField[]
}

export interface IcebergField {
  readonly id: number
  readonly name: string
  readonly required: boolean
  readonly type: IcebergType
  readonly doc?: string
}

export interface IcebergSchema {
  readonly type: 'struct'
  readonly 'schema-id': number
  readonly 'identifier-field-ids'?: readonly number[]
  readonly fields: readonly IcebergField[]
}

export interface PartitionField {
  readonly name: string
  readonly transform: string
  readonly 'source-id': number
  readonly 'field-id': number
}

export interface PartitionSpec {
  readonly 'spec-id': number
  readonly fields: readonly PartitionField[]
}

export interface SortField {
  readonly transform: string
  readonly 'source-id': number
  readonly direction: 'asc' | 'desc'
  readonly 'null-order': 'nulls-first' | 'nulls-last'
}

export interface SortOrder {
  readonly 'order-id': number
  readonly fields: readonly SortField[]
}

export interface Snapshot {
  readonly 'snapshot-id': bigint
  readonly 'parent-snapshot-id'?: bigint
  readonly 'sequence-number': number
  readonly 'timestamp-ms': number
  readonly 'manifest-list': string
  readonly summary: Readonly<Record<string, string>> & { readonly operation: string }
  readonly 'schema-id'?: number
}

export interface SnapshotRef {
  readonly 'snapshot-id': bigint
  readonly type: 'branch' | 'tag'
  readonly [extra: string]: unknown
}

export interface SnapshotLogEntry {
  readonly 'timestamp-ms': number
  readonly 'snapshot-id': bigint
}

export interface MetadataLogEntry {
  readonly 'timestamp-ms': number
  readonly 'metadata-file': string
}

export interface TableMetadata {
  readonly 'format-version': 2
  readonly 'table-uuid': string
  readonly location: string
  readonly 'last-sequence-number': number
  readonly 'last-updated-ms': number
  readonly 'last-column-id': number
  readonly 'current-schema-id': number
  readonly schemas: readonly IcebergSchema[]
  readonly 'default-spec-id': number
  readonly 'partition-specs': readonly PartitionSpec[]
  readonly 'last-partition-id': number
  readonly 'default-sort-order-id': number
  readonly 'sort-orders': readonly SortOrder[]
  readonly properties: Readonly<Record<string, string>>
  readonly 'current-snapshot-id'?: bigint
  readonly refs: Readonly<Record<string, SnapshotRef>>
  readonly snapshots: readonly Snapshot[]
  readonly 'snapshot-log': readonly SnapshotLogEntry[]
  readonly 'metadata-log': readonly MetadataLogEntry[]
  /** Members this writer does not interpret are carried over unchanged. */
  readonly [extra: string]: unknown
}

/** data_file.content */
export const FileContent = { DATA: 0, POSITION_DELETES: 1, EQUALITY_DELETES: 2 } as const
export type FileContent = (typeof FileContent)[keyof typeof FileContent]

/** A partition value as stored in manifests (identity of a string/int/... source column). */
export type PartitionValue = string | number | bigint | boolean | Uint8Array | null

/** One data or delete file, as a manifest entry's `data_file` record describes it. */
export interface DataFile {
  readonly content: FileContent
  /** Absolute location (`s3://…` or `file:///…`). */
  readonly filePath: string
  readonly fileFormat: string
  readonly specId: number
  /** One value per field of the partition spec, in spec order. */
  readonly partition: readonly PartitionValue[]
  readonly recordCount: number
  readonly fileSizeInBytes: number
  readonly columnSizes?: ReadonlyMap<number, number>
  readonly valueCounts?: ReadonlyMap<number, number>
  readonly nullValueCounts?: ReadonlyMap<number, number>
  readonly nanValueCounts?: ReadonlyMap<number, number>
  readonly lowerBounds?: ReadonlyMap<number, Uint8Array>
  readonly upperBounds?: ReadonlyMap<number, Uint8Array>
  readonly keyMetadata?: Uint8Array
  readonly splitOffsets?: readonly number[]
  readonly equalityIds?: readonly number[]
  readonly sortOrderId?: number
  readonly referencedDataFile?: string
}

/** manifest_entry.status */
export const EntryStatus = { EXISTING: 0, ADDED: 1, DELETED: 2 } as const
export type EntryStatus = (typeof EntryStatus)[keyof typeof EntryStatus]

export interface ManifestEntry {
  readonly status: EntryStatus
  /** Null only for ADDED entries, which inherit the id of the snapshot that added the manifest. */
  readonly snapshotId: bigint | null
  readonly sequenceNumber: number | null
  readonly fileSequenceNumber: number | null
  readonly dataFile: DataFile
}

/** manifest_file.content */
export const ManifestContent = { DATA: 0, DELETES: 1 } as const
export type ManifestContent = (typeof ManifestContent)[keyof typeof ManifestContent]

export interface PartitionFieldSummary {
  readonly containsNull: boolean
  readonly containsNan: boolean | null
  readonly lowerBound: Uint8Array | null
  readonly upperBound: Uint8Array | null
}

/** One manifest_file record of a manifest list. */
export interface ManifestFile {
  readonly manifestPath: string
  readonly manifestLength: number
  readonly partitionSpecId: number
  readonly content: ManifestContent
  readonly sequenceNumber: number
  readonly minSequenceNumber: number
  readonly addedSnapshotId: bigint
  readonly addedFilesCount: number
  readonly existingFilesCount: number
  readonly deletedFilesCount: number
  readonly addedRowsCount: number
  readonly existingRowsCount: number
  readonly deletedRowsCount: number
  readonly partitions: readonly PartitionFieldSummary[] | null
  readonly keyMetadata: Uint8Array | null
}

/** The tiered end offset (exclusive) of one Fluss bucket, as `fluss-offsets` records it. */
export interface FlussBucketOffset {
  readonly partitionId?: number
  readonly partitionName?: string
  readonly bucket: number
  readonly offset: number
}
