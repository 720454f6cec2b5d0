import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import type { IcebergType } from '@sluice/lake/iceberg'

/**
 * Where a lake table's current metadata file is recorded, and the one atomic operation of an
 * Iceberg commit: swapping that pointer from the metadata file a writer started from to the one it
 * wrote ("Metastore Tables" in the spec). AWS Glue in the cloud (so Athena sees the table); a
 * MetaStore item locally.
 */

/** The current metadata file of a table and the catalog's version token for compare-and-swap. */
export interface CatalogPointer {
  readonly metadataLocation: string
  /** Opaque: the MetaStore item version, or Glue's VersionId. */
  readonly version: string
}

export interface CatalogTableInput {
  readonly path: TablePath
  /** The table's base location (`metadata.location`). */
  readonly location: string
  readonly metadataLocation: string
  /** The metadata JSON written at `metadataLocation`. */
  readonly metadataJson: string
  /** Column descriptions for catalogs that list columns (Glue). */
  readonly columns: readonly CatalogColumn[]
}

export interface CatalogColumn {
  readonly name: string
  /** A primitive type's name, or a list, map or struct type as Iceberg metadata stores it. */
  readonly icebergType: IcebergType
  readonly fieldId: number
  readonly required: boolean
  readonly doc?: string
}

export interface CatalogCommit extends CatalogTableInput {
  /** The pointer the new metadata was built on. */
  readonly base: CatalogPointer
}

export interface LakeCatalog {
  /** The table's pointer, or undefined when the catalog has no such table. */
  loadTable(path: TablePath): Promise<CatalogPointer | undefined>
  /** Registers a new table; LAKE_TABLE_ALREADY_EXIST when it exists. */
  createTable(input: CatalogTableInput): Promise<CatalogPointer>
  /**
   * Swaps the pointer from `base` to the new metadata file. LAKE_COMMIT_CONFLICT when the table
   * no longer points at `base` (nothing changed); any other error may leave the outcome unknown
   * (see `isCommitStateUnknown`).
   */
  commitTable(commit: CatalogCommit): Promise<CatalogPointer>
}

/** Marks an error after which the catalog may or may not have applied the swap. */
export function commitStateUnknown(cause: unknown, message: string): FlussError {
  const err = new FlussError('STORAGE_EXCEPTION', message, { cause })
  return Object.assign(err, { commitStateUnknown: true })
}

export function isCommitStateUnknown(e: unknown): boolean {
  return (
    e instanceof FlussError &&
    (e as FlussError & { commitStateUnknown?: boolean }).commitStateUnknown === true
  )
}

export function commitConflict(path: TablePath, detail: string): FlussError {
  return new FlussError(
    'LAKE_COMMIT_CONFLICT',
    `lake table ${path.databaseName}.${path.tableName}: a concurrent commit won (${detail})`,
  )
}
