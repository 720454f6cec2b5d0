import { lakeHintedMetadataKey, lakeVersionHintKey } from '@sluice/core/blobstore'
import { FlussError, isFlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import {
  type ItemKey,
  lakeCatalogKey as lakeCatalogItemKey,
  type MetaStore,
  type VersionedItem,
} from '@sluice/core/metastore'
import type { LakeFileIO } from '@sluice/lake/io'
import {
  type CatalogCommit,
  type CatalogPointer,
  type CatalogTableInput,
  commitConflict,
  commitStateUnknown,
  type LakeCatalog,
} from './catalog.js'

/**
 * The local lake catalog: one MetaStore item per lake table holds the current metadata location,
 * and the pointer swap is a conditional write on the item's version (DynamoDB or its in-memory
 * twin), as Iceberg's DynamoDbCatalog does.
 *
 * After every successful swap it also publishes the Hadoop-style files that file-based readers
 * (icebird, DuckDB, Java's HadoopTables) look for: `metadata/v<N>.metadata.json`, a copy of the new
 * metadata where N is the item version (1 for a new table), then `metadata/version-hint.text`
 * holding N. They are advisory: the item is the commit point, a failed hint write does not undo a
 * commit, and the next commit rewrites the hint.
 */

/** Item key of a lake table (`LAKE_CATALOG#<db>` / `TABLE#<table>`, from core's key registry). */
export function lakeCatalogKey(path: TablePath): ItemKey {
  return lakeCatalogItemKey(path.databaseName, path.tableName)
}

interface LakeTableItem {
  readonly table_type: 'ICEBERG'
  readonly location: string
  readonly metadata_location: string
  readonly previous_metadata_location?: string
  readonly updated_at: number
}

export class LocalCatalog implements LakeCatalog {
  constructor(
    private readonly metaStore: MetaStore,
    private readonly io: LakeFileIO,
    private readonly clock: () => number = Date.now,
  ) {}

  async loadTable(path: TablePath): Promise<CatalogPointer | undefined> {
    const key = lakeCatalogKey(path)
    const item = await this.metaStore.get(key.pk, key.sk)
    return item === undefined ? undefined : pointerOf(item)
  }

  async createTable(input: CatalogTableInput): Promise<CatalogPointer> {
    const key = lakeCatalogKey(input.path)
    const value: LakeTableItem = {
      table_type: 'ICEBERG',
      location: input.location,
      metadata_location: input.metadataLocation,
      updated_at: this.clock(),
    }
    try {
      const version = await this.metaStore.put(key.pk, key.sk, { ...value }, { version: 'absent' })
      await this.publishHint(input, version)
      return { metadataLocation: input.metadataLocation, version: String(version) }
    } catch (e) {
      if (isFlussError(e, 'METASTORE_CONFLICT')) {
        throw new FlussError('LAKE_TABLE_ALREADY_EXIST', `lake table ${name(input.path)} already exists`)
      }
      throw e
    }
  }

  async commitTable(commit: CatalogCommit): Promise<CatalogPointer> {
    const key = lakeCatalogKey(commit.path)
    const expected = Number(commit.base.version)
    const value: LakeTableItem = {
      table_type: 'ICEBERG',
      location: commit.location,
      metadata_location: commit.metadataLocation,
      previous_metadata_location: commit.base.metadataLocation,
      updated_at: this.clock(),
    }
    let version: number
    try {
      version = await this.metaStore.put(key.pk, key.sk, { ...value }, { version: expected })
    } catch (e) {
      if (isFlussError(e, 'METASTORE_CONFLICT'))
        throw commitConflict(commit.path, `expected item version ${expected}`)
      version = await this.checkCommitted(commit, e)
    }
    await this.publishHint(commit, version)
    return { metadataLocation: commit.metadataLocation, version: String(version) }
  }

  /** After an unclear failure: the item says whether the swap happened. */
  private async checkCommitted(commit: CatalogCommit, cause: unknown): Promise<number> {
    let current: CatalogPointer | undefined
    try {
      current = await this.loadTable(commit.path)
    } catch {
      throw commitStateUnknown(cause, `lake commit of ${name(commit.path)} has an unknown outcome`)
    }
    if (current?.metadataLocation === commit.metadataLocation) return Number(current.version)
    throw cause
  }

  private publishHint(input: CatalogTableInput, version: number): Promise<void> {
    return publishVersionHint(this.io, input, version)
  }
}

/**
 * Publishes `metadata/v<version>.metadata.json` (a copy of the new metadata) and
 * `metadata/version-hint.text` for file-based readers. Advisory: a failure leaves the commit
 * standing, and the next commit writes the hint again.
 */
export async function publishVersionHint(
  io: LakeFileIO,
  input: CatalogTableInput,
  version: number,
): Promise<void> {
  try {
    await io.write(lakeHintedMetadataKey(input.location, version), Buffer.from(input.metadataJson))
    await io.write(lakeVersionHintKey(input.location), Buffer.from(String(version)))
  } catch {
    // Advisory files: the commit stands; the next commit writes the hint again.
  }
}

function pointerOf(item: VersionedItem): CatalogPointer {
  const location = item.value.metadata_location
  if (typeof location !== 'string') {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `lake catalog item ${item.pk}/${item.sk} has no metadata_location`,
    )
  }
  return { metadataLocation: location, version: String(item.version) }
}

function name(path: TablePath): string {
  return `${path.databaseName}.${path.tableName}`
}
