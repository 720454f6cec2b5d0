import { lakeMetadataFileKey, lakeMetadataFileVersion } from '@sluice/core/blobstore'
import { FlussError, isFlussError } from '@sluice/core/errors'
import type { TableInfo, TablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type {
  DataFile,
  ManifestContent,
  ManifestContext,
  PartitionField,
  TableMetadata,
} from '@sluice/lake/iceberg'
import {
  evolvedIcebergSchema,
  type LakePartitioning,
  type LakeSchema,
  type LakeTableOptions,
  lakePartitioningOf,
  lakeSchemaOf,
  lakeTableOptions,
  newTableMetadata,
  sameFields,
  serializeTableMetadata,
  uuidV7,
  withCurrentSchema,
} from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'
import type { WriteContext } from '@sluice/lake/parquet'
import { DataFileWriter, writeEqualityDeleteFile } from '@sluice/lake/parquet'
import { type CatalogColumn, isCommitStateUnknown, type LakeCatalog } from '../catalog/catalog.js'
import { type AppendRequest, type CommitResult, commitAppend } from './append.js'
import { type LakeTableState, readState, stateOf } from './table-state.js'

export interface IcebergTableDeps {
  readonly io: LakeFileIO
  readonly catalog: LakeCatalog
  readonly clock?: () => number
  readonly options?: Partial<LakeTableOptions>
}

/**
 * One Iceberg v2 lake table of a Fluss table, as the tiering round uses it:
 *
 *   const table = new IcebergTable(tablePath, { io, catalog })
 *   let state = await table.createIfAbsent(tableInfo)      // or load() later on
 *   const writer = table.newDataFileWriter(bucket)          // per (partition, bucket)
 *   await writer.write(records); const dataFiles = await writer.finish()
 *   const deletes = await table.writeEqualityDeleteFile(bucket, keys)   // PK tables
 *   await table.commitAppend({ dataFiles, deleteFiles: [deletes], summary: { flussOffsets }, base: state })
 *
 * A commit writes manifests, a manifest list and a new metadata file, then swaps the catalog
 * pointer atomically. Losing the swap to another Fluss commit throws LAKE_COMMIT_CONFLICT after
 * deleting every file of the attempt, the data and delete files included.
 */
export class IcebergTable {
  readonly io: LakeFileIO
  readonly catalog: LakeCatalog
  readonly clock: () => number
  readonly options: LakeTableOptions
  private bound: { schema: LakeSchema; partitioning: LakePartitioning; location: string } | undefined

  constructor(
    readonly path: TablePath,
    deps: IcebergTableDeps,
  ) {
    this.io = deps.io
    this.catalog = deps.catalog
    this.clock = deps.clock ?? Date.now
    this.options = lakeTableOptions(deps.options)
  }

  /**
   * Creates the lake table of `tableInfo` unless it exists, and returns its state. An existing
   * table gets the next schema when the Fluss table was altered since (Iceberg schema evolution,
   * by field id); it must have the partition spec `tableInfo` maps to (INVALID_TABLE_EXCEPTION).
   */
  async createIfAbsent(
    tableInfo: TableInfo,
    location = this.io.tableLocation(this.path),
  ): Promise<LakeTableState> {
    const schema = lakeSchemaOf(tableInfo)
    const partitioning = lakePartitioningOf(tableInfo, schema)
    const pointer = await this.catalog.loadTable(this.path)
    if (pointer !== undefined) {
      const state = await this.evolved(schema, await readState(this.io, pointer))
      return this.bind(schema, partitioning, state)
    }
    const metadata = newTableMetadata({
      tableInfo,
      location: location.replace(/\/+$/, ''),
      schema,
      partitioning,
      nowMs: this.clock(),
    })
    const metadataLocation = lakeMetadataFileKey(metadata.location, 0, uuidV7(this.clock()))
    const metadataJson = serializeTableMetadata(metadata)
    await this.io.write(metadataLocation, Buffer.from(metadataJson), true)
    try {
      const created = await this.catalog.createTable({
        path: this.path,
        location: metadata.location,
        metadataLocation,
        metadataJson,
        columns: catalogColumns(metadata),
      })
      return this.bind(schema, partitioning, stateOf(created, metadata))
    } catch (e) {
      if (isCommitStateUnknown(e)) throw e
      await this.io.delete([metadataLocation])
      if (!isFlussError(e, 'LAKE_TABLE_ALREADY_EXIST')) throw e
      return this.bind(schema, partitioning, await this.evolved(schema, await this.load()))
    }
  }

  /**
   * The table after its schema followed the Fluss table's (`evolvedIcebergSchema`): a new current
   * schema committed as its own metadata version when the Fluss table was altered, else `state`.
   */
  private async evolved(schema: LakeSchema, state: LakeTableState): Promise<LakeTableState> {
    const next = evolvedIcebergSchema(state.metadata, schema)
    if (next === undefined) return state
    const { metadataLocation } = state.pointer
    const metadata = withCurrentSchema(
      state.metadata,
      metadataLocation,
      next,
      schema.lastColumnId,
      this.clock(),
    )
    return this.commitMetadata(state, metadata)
  }

  private bind(schema: LakeSchema, partitioning: LakePartitioning, state: LakeTableState): LakeTableState {
    const md = state.metadata
    const current = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
    const spec = md['partition-specs'].find(s => s['spec-id'] === md['default-spec-id'])
    if (current === undefined || !sameFields(current, schema.iceberg)) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `lake table ${this.name} has a different schema than the Fluss table`,
      )
    }
    if (spec === undefined || !sameSpecFields(spec.fields, partitioning.spec.fields)) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `lake table ${this.name} has a different partition spec`,
      )
    }
    this.bound = {
      schema: { ...schema, iceberg: current },
      partitioning: { ...partitioning, spec },
      location: md.location,
    }
    return state
  }

  get name(): string {
    return `${this.path.databaseName}.${this.path.tableName}`
  }

  /** The table's current metadata and tiering position; TABLE_NOT_EXIST when not created. */
  async load(): Promise<LakeTableState> {
    const pointer = await this.catalog.loadTable(this.path)
    if (pointer === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `lake table ${this.name} does not exist`)
    return readState(this.io, pointer)
  }

  /** What the file writers need; INVALID_REQUEST before `createIfAbsent` bound the table. */
  writeContext(): WriteContext {
    if (this.bound === undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `lake table ${this.name} is not bound: call createIfAbsent first`,
      )
    }
    return { io: this.io, clock: this.clock, options: this.options, ...this.bound }
  }

  manifestContext(content: ManifestContent): ManifestContext {
    const ctx = this.writeContext()
    return {
      schema: ctx.schema.iceberg,
      spec: ctx.partitioning.spec,
      partitionFields: ctx.partitioning.fields,
      content,
    }
  }

  newDataFileWriter(bucket: number): DataFileWriter {
    return new DataFileWriter(this.writeContext(), bucket)
  }

  /** Writes one key-only equality delete file (keys: primary-key values in key order). */
  writeEqualityDeleteFile(bucket: number, keys: readonly Row[]): Promise<DataFile> {
    return writeEqualityDeleteFile(this.writeContext(), bucket, keys)
  }

  /** Appends data and delete files as one snapshot; see `append.ts`. */
  commitAppend(request: AppendRequest): Promise<CommitResult> {
    return commitAppend(this, request)
  }

  /**
   * Writes `metadata` as the next metadata file and swaps the catalog pointer from `base` to it.
   * On a definite failure the file is deleted again; LAKE_COMMIT_CONFLICT when another commit won.
   */
  async commitMetadata(base: LakeTableState, metadata: TableMetadata): Promise<LakeTableState> {
    const previous =
      lakeMetadataFileVersion(base.pointer.metadataLocation) ?? base.metadata['metadata-log'].length
    const metadataLocation = lakeMetadataFileKey(metadata.location, previous + 1, uuidV7(this.clock()))
    const metadataJson = serializeTableMetadata(metadata)
    await this.io.write(metadataLocation, Buffer.from(metadataJson), true)
    try {
      const pointer = await this.catalog.commitTable({
        path: this.path,
        location: metadata.location,
        metadataLocation,
        metadataJson,
        columns: catalogColumns(metadata),
        base: base.pointer,
      })
      return stateOf(pointer, metadata)
    } catch (e) {
      if (!isCommitStateUnknown(e)) await this.io.delete([metadataLocation])
      throw e
    }
  }
}

function sameSpecFields(a: readonly PartitionField[], b: readonly PartitionField[]): boolean {
  return (
    a.length === b.length &&
    a.every((f, i) => {
      const g = b[i]
      return (
        f.name === g.name &&
        f.transform === g.transform &&
        f['source-id'] === g['source-id'] &&
        f['field-id'] === g['field-id']
      )
    })
  )
}

function catalogColumns(md: TableMetadata): CatalogColumn[] {
  const schema = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
  return (schema?.fields ?? []).map(f => ({
    name: f.name,
    icebergType: f.type,
    fieldId: f.id,
    required: f.required,
    ...(f.doc === undefined ? {} : { doc: f.doc }),
  }))
}
