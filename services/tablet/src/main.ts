import { type BlobStore, createBlobStore } from '@sluice/core/blobstore'
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
  TABLET_SERVER_ID,
} from '@sluice/core/config'
import { Catalog, readOnlyAdminHandlers } from '@sluice/core/control-plane'
import { createLogger, loggerFromConfig } from '@sluice/core/log'
import { metaStoreFromConfig } from '@sluice/core/metastore/dynamo'
import { type ProcessMetrics, startProcessMetrics } from '@sluice/core/metrics'
import { stopOnSignalsOrParentExit } from '@sluice/core/process'
import { MetaStoreControlPlane } from './control-plane/metastore-control-plane.js'
import { remoteDataDirOf, TabletServer } from './server/tablet-server.js'

/**
 * The tablet server process: the only reader of the environment. Configuration comes from the file
 * named by `--config <path>` (or SLUICE_CONFIG) plus FLUSS_CONF; the metadata store is DynamoDB at
 * `sluice.metastore.*`. Logs JSON lines (`log.level`, `sluice.log.format`); with a metric reporter
 * prints `metrics=http://host:port/metrics`, then `tablet-server <id> listening on host:port` once
 * serving; SIGTERM or SIGINT stops it gracefully.
 */

/** The operator metrics of the embedded-metric-format lines (`sluice.metrics.emf.interval`). */
const EMF_METRICS = [
  { from: 'fluss_tabletserver_underReplicated', name: 'underReplicated', unit: 'Count', kind: 'sum' },
  { from: 'fluss_tabletserver_underMinIsr', name: 'underMinIsr', unit: 'Count', kind: 'sum' },
  {
    from: 'fluss_tabletserver_kvSnapshot_failures_total',
    name: 'kvSnapshotFailures',
    unit: 'Count',
    kind: 'delta',
  },
  { from: 'fluss_tabletserver_kvSnapshot_lagMs', name: 'kvSnapshotLagMs', unit: 'Milliseconds', kind: 'max' },
  {
    from: 'fluss_tabletserver_remoteLogCopyError_total',
    name: 'remoteLogCopyErrors',
    unit: 'Count',
    kind: 'delta',
  },
  { from: 'fluss_tabletserver_messagesIn_total', name: 'messagesIn', unit: 'Count', kind: 'delta' },
  { from: 'fluss_tabletserver_bytesIn_total', name: 'bytesIn', unit: 'Bytes', kind: 'delta' },
  { from: 'fluss_tabletserver_bytesOut_total', name: 'bytesOut', unit: 'Bytes', kind: 'delta' },
] as const

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
  const logger = loggerFromConfig(config, 'tablet-server')
  for (const w of warnings) logger.warn(w)
  const metrics: ProcessMetrics | undefined = await startProcessMetrics(config, {
    scope: 'tabletserver',
    labels: { server_id: String(config.get(TABLET_SERVER_ID)) },
    emfMetrics: EMF_METRICS,
  })
  if (metrics?.endpoint !== undefined) console.log(`metrics=${metrics.endpoint.url}`)
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
    controlPlane: new MetaStoreControlPlane(new Catalog(store), store, config.get(INTERNAL_LISTENER_NAME)),
    adminHandlers: readOnlyAdminHandlers(cachedCatalog, remoteDataDir === undefined ? {} : { remoteDataDir }),
    logger,
    metaStore: store,
    ...(blobStore === undefined ? {} : { blobStore }),
    ...(metrics === undefined ? {} : { metrics: metrics.registry }),
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
      .then(() => metrics?.close())
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
  createLogger({ component: 'tablet-server' }).error('failed to start', { error: e })
  process.exit(1)
})
