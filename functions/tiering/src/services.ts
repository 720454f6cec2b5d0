import { GlueClient } from '@aws-sdk/client-glue'
import { type BlobStore, createBlobStore } from '@sluice/core/blobstore'
import {
  type Configuration,
  SLUICE_AWS_REGION,
  SLUICE_BLOBSTORE_ENDPOINT,
  SLUICE_BLOBSTORE_PATH_STYLE_ACCESS,
  SLUICE_BLOBSTORE_URI,
  SLUICE_METASTORE_ENDPOINT,
  SLUICE_METASTORE_REGION,
  SLUICE_METASTORE_TABLE,
} from '@sluice/core/config'
import { Catalog } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { AwsCredentials, MetaStore } from '@sluice/core/metastore'
import { DynamoMetaStore } from '@sluice/core/metastore/dynamo'
import { LakeFileIO } from '@sluice/lake/io'
import type { LakeCatalog } from './catalog/catalog.js'
import { GlueCatalog } from './catalog/glue-catalog.js'
import { LocalCatalog } from './catalog/local-catalog.js'
import { catalogTieringMetadata, type TieringMetadata } from './round/tiering-metadata.js'

/**
 * What tiering runs on, built from the configuration:
 * - the MetaStore (`sluice.metastore.*`, DynamoDB) with the catalog and the LAKE items;
 * - the BlobStore (`sluice.blobstore.*`) holding the remote log; the lake lives in the same store
 *   under `lake/<database>/<table>`, unless `datalake.iceberg.warehouse` names another root;
 * - the lake catalog: AWS Glue when `datalake.iceberg.type` is `glue` (region from
 *   `datalake.iceberg.client.region`, else `sluice.aws.region`), else the local catalog whose
 *   pointer is a MetaStore item.
 */
export interface TieringServices {
  readonly metaStore: MetaStore
  readonly blobStore: BlobStore
  readonly lakeIo: LakeFileIO
  readonly lakeCatalog: LakeCatalog
  readonly metadata: TieringMetadata
  close(): Promise<void>
}

export interface TieringServiceOverrides {
  /** Credentials of the local emulators (else the SDK's default chain). */
  readonly credentials?: AwsCredentials
  readonly metaStore?: MetaStore
  readonly blobStore?: BlobStore
}

export const CATALOG_TYPE_KEY = 'datalake.iceberg.type'
export const WAREHOUSE_KEY = 'datalake.iceberg.warehouse'
export const GLUE_REGION_KEY = 'datalake.iceberg.client.region'
/** One Glue database for every table (`<db>__<table>`); unset = one Glue database per Fluss database. */
export const GLUE_DATABASE_KEY = 'datalake.iceberg.glue.database'

function passthrough(config: Configuration, key: string): string | undefined {
  const v = config.rawValues()[key]
  return v === undefined ? undefined : String(v)
}

export async function createTieringServices(
  config: Configuration,
  overrides: TieringServiceOverrides = {},
): Promise<TieringServices> {
  const region = config.getOptional(SLUICE_AWS_REGION)
  const credentials = overrides.credentials === undefined ? {} : { credentials: overrides.credentials }
  const metaRegion = config.getOptional(SLUICE_METASTORE_REGION) ?? region
  const metaEndpoint = config.getOptional(SLUICE_METASTORE_ENDPOINT)
  const metaStore =
    overrides.metaStore ??
    new DynamoMetaStore({
      tableName: config.get(SLUICE_METASTORE_TABLE),
      ...(metaRegion === undefined ? {} : { region: metaRegion }),
      ...(metaEndpoint === undefined ? {} : { endpoint: metaEndpoint }),
      ...credentials,
    })
  const uri = config.getOptional(SLUICE_BLOBSTORE_URI)
  if (uri === undefined && overrides.blobStore === undefined) {
    throw new FlussError('LAKE_STORAGE_NOT_CONFIGURED_EXCEPTION', `${SLUICE_BLOBSTORE_URI.key} is not set`)
  }
  const endpoint = config.getOptional(SLUICE_BLOBSTORE_ENDPOINT)
  const storeOptions = {
    ...(region === undefined ? {} : { region }),
    ...(endpoint === undefined ? {} : { endpoint }),
    forcePathStyle: config.get(SLUICE_BLOBSTORE_PATH_STYLE_ACCESS),
    ...credentials,
  }
  const blobStore = overrides.blobStore ?? (await createBlobStore(uri as string, storeOptions))
  const warehouse = passthrough(config, WAREHOUSE_KEY)
  const separateLake = warehouse !== undefined && warehouse.replace(/\/+$/, '') !== uri?.replace(/\/+$/, '')
  const lakeStore = separateLake ? await createBlobStore(warehouse, storeOptions) : blobStore
  const lakeIo = new LakeFileIO(lakeStore, separateLake ? warehouse : (uri ?? 'memory://lake'))
  const lakeCatalog = lakeCatalogOf(config, metaStore, lakeIo, region)
  return {
    metaStore,
    blobStore,
    lakeIo,
    lakeCatalog,
    metadata: catalogTieringMetadata(new Catalog(metaStore)),
    async close() {
      if (separateLake) await lakeStore.close()
      if (overrides.blobStore === undefined) await blobStore.close()
      if (overrides.metaStore === undefined) await metaStore.close()
    },
  }
}

function lakeCatalogOf(
  config: Configuration,
  metaStore: MetaStore,
  io: LakeFileIO,
  region: string | undefined,
): LakeCatalog {
  const type = passthrough(config, CATALOG_TYPE_KEY)?.toLowerCase()
  if (type === undefined || type === 'sluice' || type === 'dynamodb') return new LocalCatalog(metaStore, io)
  if (type === 'glue') {
    const glueRegion = passthrough(config, GLUE_REGION_KEY) ?? region
    return new GlueCatalog(
      new GlueClient(glueRegion === undefined ? {} : { region: glueRegion }),
      io,
      passthrough(config, GLUE_DATABASE_KEY),
    )
  }
  throw new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `${CATALOG_TYPE_KEY} '${type}' is not supported; use 'glue' or leave it unset for the built-in catalog`,
  )
}
