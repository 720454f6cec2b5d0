import {
  type Column,
  CreateDatabaseCommand,
  CreateTableCommand,
  GetTableCommand,
  type Table,
  type TableInput,
  UpdateTableCommand,
} from '@aws-sdk/client-glue'
import { lakeMetadataFileVersion } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import { hiveTypeString, type IcebergType } from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'
import {
  type CatalogColumn,
  type CatalogCommit,
  type CatalogPointer,
  type CatalogTableInput,
  commitConflict,
  commitStateUnknown,
  type LakeCatalog,
} from './catalog.js'
import { publishVersionHint } from './local-catalog.js'

/**
 * The AWS Glue Data Catalog, as Iceberg's GlueTableOperations uses it (the only catalog Athena
 * reads Iceberg tables from): an EXTERNAL_TABLE with `table_type=ICEBERG` and `metadata_location`;
 * a commit is UpdateTable with the VersionId read by GetTable (compare-and-swap) and
 * `SkipArchive: true`, so that frequent commits do not pile up Glue table versions (quota: 100,000
 * per table). Database and table names are lower-cased, as Glue and Hive store them.
 */

/** The part of GlueClient this catalog uses (tests inject a fake). */
export interface GlueApi {
  send(
    command: GetTableCommand | CreateTableCommand | UpdateTableCommand | CreateDatabaseCommand,
  ): Promise<unknown>
}

const GLUE_TYPES: Record<string, string> = {
  boolean: 'boolean',
  int: 'int',
  long: 'bigint',
  float: 'float',
  double: 'double',
  date: 'date',
  time: 'string',
  timestamp: 'timestamp',
  timestamptz: 'timestamp',
  string: 'string',
  uuid: 'string',
  binary: 'binary',
}

/**
 * Glue column type of an Iceberg type (IcebergToGlueConverter's mapping): primitives by name, list,
 * map and struct as `array<…>`, `map<…,…>`, `struct<name:…,…>`.
 */
export function glueType(icebergType: IcebergType): string {
  return hiveTypeString(icebergType, gluePrimitive)
}

function gluePrimitive(icebergType: string): string {
  if (icebergType.startsWith('decimal')) return icebergType.replace(/\s+/g, '')
  if (icebergType.startsWith('fixed')) return 'binary'
  const t = GLUE_TYPES[icebergType]
  if (t === undefined)
    throw new FlussError('INVALID_TABLE_EXCEPTION', `no Glue type for Iceberg type ${icebergType}`)
  return t
}

function glueColumns(columns: readonly CatalogColumn[]): Column[] {
  return columns.map(c => ({
    Name: c.name.toLowerCase(),
    Type: glueType(c.icebergType),
    ...(c.doc === undefined ? {} : { Comment: c.doc }),
    Parameters: {
      'iceberg.field.id': String(c.fieldId),
      'iceberg.field.optional': String(!c.required),
      'iceberg.field.current': 'true',
    },
  }))
}

const errorName = (e: unknown) => (e as { name?: string } | null)?.name ?? ''

export class GlueCatalog implements LakeCatalog {
  /**
   * With `io`, every successful create and commit also publishes `version-hint.text` and
   * `v<N>.metadata.json` (N = the metadata file's version + 1, as the local catalog numbers
   * them), so file-based readers and the SDK's union read find the table without Glue.
   */
  /**
   * `glueDatabase`: when set, every Fluss table goes into this one Glue database as
   * `<fluss database>__<table>` (a deployment grants access to one database only); otherwise each
   * Fluss database maps to the Glue database of the same name.
   */
  constructor(
    private readonly glue: GlueApi,
    private readonly io?: LakeFileIO,
    private readonly glueDatabase?: string,
  ) {}

  private async hint(input: CatalogTableInput): Promise<void> {
    const version = lakeMetadataFileVersion(input.metadataLocation)
    if (this.io !== undefined && version !== undefined) await publishVersionHint(this.io, input, version + 1)
  }

  private names(path: TablePath): { DatabaseName: string; Name: string } {
    if (this.glueDatabase !== undefined) {
      return {
        DatabaseName: this.glueDatabase,
        Name: `${path.databaseName}__${path.tableName}`.toLowerCase(),
      }
    }
    return { DatabaseName: path.databaseName.toLowerCase(), Name: path.tableName.toLowerCase() }
  }

  private async getTable(path: TablePath): Promise<Table | undefined> {
    const { DatabaseName, Name } = this.names(path)
    try {
      const out = (await this.glue.send(new GetTableCommand({ DatabaseName, Name }))) as { Table?: Table }
      return out.Table
    } catch (e) {
      if (errorName(e) === 'EntityNotFoundException') return undefined
      throw new FlussError(
        'STORAGE_EXCEPTION',
        `Glue GetTable ${DatabaseName}.${Name} failed: ${(e as Error).message}`,
        { cause: e },
      )
    }
  }

  async loadTable(path: TablePath): Promise<CatalogPointer | undefined> {
    const table = await this.getTable(path)
    if (table === undefined) return undefined
    const location = table.Parameters?.metadata_location
    if (table.Parameters?.table_type?.toUpperCase() !== 'ICEBERG' || location === undefined) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `Glue table ${table.DatabaseName}.${table.Name} is not an Iceberg table`,
      )
    }
    return { metadataLocation: location, version: table.VersionId ?? '' }
  }

  private tableInput(
    input: CatalogTableInput,
    parameters: Record<string, string>,
    previous?: Table,
  ): TableInput {
    return {
      Name: this.names(input.path).Name,
      TableType: 'EXTERNAL_TABLE',
      ...(previous?.Description === undefined ? {} : { Description: previous.Description }),
      Parameters: parameters,
      StorageDescriptor: { Location: input.location, Columns: glueColumns(input.columns) },
    }
  }

  async createTable(input: CatalogTableInput): Promise<CatalogPointer> {
    const { DatabaseName } = this.names(input.path)
    const TableInput = this.tableInput(input, {
      table_type: 'ICEBERG',
      metadata_location: input.metadataLocation,
    })
    const create = () => this.glue.send(new CreateTableCommand({ DatabaseName, TableInput }))
    try {
      await create().catch(async e => {
        if (errorName(e) !== 'EntityNotFoundException') throw e
        await this.glue
          .send(new CreateDatabaseCommand({ DatabaseInput: { Name: DatabaseName } }))
          .catch(d => {
            if (errorName(d) !== 'AlreadyExistsException') throw d
          })
        await create()
      })
    } catch (e) {
      if (errorName(e) === 'AlreadyExistsException') {
        throw new FlussError(
          'LAKE_TABLE_ALREADY_EXIST',
          `Glue table ${DatabaseName}.${TableInput.Name} already exists`,
        )
      }
      throw new FlussError('STORAGE_EXCEPTION', `Glue CreateTable failed: ${(e as Error).message}`, {
        cause: e,
      })
    }
    const created = await this.loadTable(input.path)
    if (created === undefined)
      throw new FlussError('STORAGE_EXCEPTION', 'Glue table vanished right after CreateTable')
    await this.hint(input)
    return created
  }

  async commitTable(commit: CatalogCommit): Promise<CatalogPointer> {
    const table = await this.getTable(commit.path)
    if (table === undefined)
      throw new FlussError('TABLE_NOT_EXIST', `Glue table for ${commit.path.tableName} is gone`)
    const current = table.Parameters?.metadata_location
    if (current !== commit.base.metadataLocation || table.VersionId !== commit.base.version) {
      throw commitConflict(commit.path, `Glue points at ${current} (version ${table.VersionId})`)
    }
    const parameters = {
      ...table.Parameters,
      table_type: 'ICEBERG',
      metadata_location: commit.metadataLocation,
      previous_metadata_location: commit.base.metadataLocation,
    }
    try {
      await this.glue.send(
        new UpdateTableCommand({
          ...this.names(commit.path),
          TableInput: this.tableInput(commit, parameters, table),
          VersionId: table.VersionId,
          SkipArchive: true,
        }),
      )
    } catch (e) {
      if (errorName(e) === 'ConcurrentModificationException')
        throw commitConflict(commit.path, 'Glue VersionId changed')
      const committed = await this.checkCommitted(commit, e)
      await this.hint(commit)
      return committed
    }
    await this.hint(commit)
    const after = await this.loadTable(commit.path).catch(() => undefined)
    return after ?? { metadataLocation: commit.metadataLocation, version: '' }
  }

  /** After an unclear UpdateTable failure, GetTable says whether the swap happened. */
  private async checkCommitted(commit: CatalogCommit, cause: unknown): Promise<CatalogPointer> {
    let now: CatalogPointer | undefined
    try {
      now = await this.loadTable(commit.path)
    } catch {
      throw commitStateUnknown(cause, `Glue commit of ${commit.path.tableName} has an unknown outcome`)
    }
    if (now?.metadataLocation === commit.metadataLocation) return now
    throw new FlussError('STORAGE_EXCEPTION', `Glue UpdateTable failed: ${(cause as Error).message}`, {
      cause,
    })
  }
}
