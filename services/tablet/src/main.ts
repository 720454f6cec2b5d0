import { type BlobStore, createBlobStore } from '@sluice/core/blobstore'
import { Catalog, readOnlyAdminHandlers } from '@sluice/core/catalog'
import {
  type Configuration,
  INTERNAL_LISTENER_NAME,
  loadServerConfig,
  SLUICE_AWS_REGION,
  SLUICE_BLOBSTORE_ENDPOINT,
  SLUICE_BLOBSTORE_PATH_STYLE_ACCESS,
  SLUICE_BLOBSTORE_URI,
  SLUICE_CATALOG_CACHE_MAX_ENTRIES,
  SLUICE_CATALOG_CACHE_TTL,
  stopOnSignalsOrParentExit,
} from '@sluice/core/config'
import { metaStoreFromConfig } from '@sluice/core/metastore/dynamo'
import type { RpcLogger } from '@sluice/core/rpc'
import { CatalogTabletCatalog } from './catalog/catalog-tablet-catalog.js'
import { remoteDataDirOf, TabletServer } from './tablet/tablet-server.js'

/**
 * The tablet server process: the only reader of the environment. Configuration comes from the file
 * named by `--config <path>` (or SLUICE_CONFIG) plus FLUSS_CONF; the metadata store is DynamoDB at
 * `sluice.metastore.*`. Prints `tablet-server <id> listening on host:port` once serving; SIGTERM or
 * SIGINT stops it gracefully.
 */

const line = (message: string, fields?: Record<string, unknown>) =>
  `[tablet-server] ${message}${fields === undefined ? '' : ` ${JSON.stringify(fields)}`}`

/** Warnings to stderr; informational lines (KV tablet recovery, KV snapshots committed) to stdout. */
const logger: RpcLogger & { info(message: string, fields?: Record<string, unknown>): void } = {
  warn: (message, fields) => console.error(line(message, fields)),
  info: (message, fields) => console.log(line(message, fields)),
}

function configPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const i = argv.indexOf('--config')
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1]
  const inline = argv.find(a => a.startsWith('--config='))
  return inline?.slice('--config='.length) ?? env.SLUICE_CONFIG
}

/** The remote storage at `sluice.blobstore.uri`; undefined when none is configured (all data stays local). */
async function openBlobStore(config: Configuration): Promise<BlobStore | undefined> {
  const uri = config.getOptional(SLUICE_BLOBSTORE_URI)
  if (uri === undefined) return undefined
  const region = config.getOptional(SLUICE_AWS_REGION)
  const endpoint = config.getOptional(SLUICE_BLOBSTORE_ENDPOINT)
  return createBlobStore(uri, {
    ...(region === undefined ? {} : { region }),
    ...(endpoint === undefined ? {} : { endpoint }),
    forcePathStyle: config.get(SLUICE_BLOBSTORE_PATH_STYLE_ACCESS),
  })
}

async function main(): Promise<void> {
  const filePath = configPath(process.argv.slice(2), process.env)
  const { config, warnings } = loadServerConfig({
    ...(filePath === undefined ? {} : { filePath }),
    env: process.env,
  })
  for (const w of warnings) logger.warn(w)
  const store = metaStoreFromConfig(config)
  // Metadata answers may be slightly stale (cached); leases and replica creation read through.
  const cachedCatalog = new Catalog(store, {
    cacheTtlMs: config.get(SLUICE_CATALOG_CACHE_TTL),
    cacheMaxEntries: config.get(SLUICE_CATALOG_CACHE_MAX_ENTRIES),
  })
  const blobStore = await openBlobStore(config)
  const remoteDataDir = remoteDataDirOf(config)
  const server = new TabletServer({
    config,
    catalog: new CatalogTabletCatalog(new Catalog(store), store, config.get(INTERNAL_LISTENER_NAME)),
    adminHandlers: readOnlyAdminHandlers(cachedCatalog, remoteDataDir === undefined ? {} : { remoteDataDir }),
    logger,
    metaStore: store,
    ...(blobStore === undefined ? {} : { blobStore }),
  })
  await server.start()
  const endpoint = server.endpoints[0]
  console.log(`tablet-server ${server.serverId} listening on ${endpoint.host}:${endpoint.port}`)

  let stopping: Promise<void> | undefined
  const stop = (signal: string) => {
    if (stopping !== undefined) return
    logger.warn(`received ${signal}, stopping`)
    stopping = server
      .stop()
      .then(() => blobStore?.close())
      .then(() => store.close())
      .then(
        () => process.exit(0),
        e => {
          logger.warn('graceful stop failed', { error: String(e) })
          process.exit(1)
        },
      )
  }
  stopOnSignalsOrParentExit(stop)
}

main().catch(e => {
  console.error(`[tablet-server] failed to start: ${e instanceof Error ? e.stack : String(e)}`)
  process.exit(1)
})
