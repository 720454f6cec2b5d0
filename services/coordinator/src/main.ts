import { loadServerConfig } from '@sluice/core/config'
import { createLogger, loggerFromConfig } from '@sluice/core/log'
import { metaStoreFromConfig } from '@sluice/core/metastore/dynamo'
import { startProcessMetrics } from '@sluice/core/metrics'
import { stopOnSignalsOrParentExit } from '@sluice/core/process'
import { ecsTaskPrivateAddress } from './server/advertised-endpoints.js'
import { CoordinatorServer } from './server/coordinator-server.js'

/** The environment variable naming the config file when `--config` is not given. */
const CONFIG_ENV = 'SLUICE_CONFIG'

/** The operator metrics of the embedded-metric-format lines (`sluice.metrics.emf.interval`). */
const EMF_METRICS = [
  {
    from: 'fluss_coordinator_activeCoordinatorCount',
    name: 'activeCoordinatorCount',
    unit: 'Count',
    kind: 'sum',
  },
  {
    from: 'fluss_coordinator_activeTabletServerCount',
    name: 'activeTabletServerCount',
    unit: 'Count',
    kind: 'sum',
  },
  { from: 'fluss_coordinator_offlineBucketCount', name: 'offlineBucketCount', unit: 'Count', kind: 'sum' },
] as const

function configPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const i = argv.indexOf('--config')
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1]
  const inline = argv.find(a => a.startsWith('--config='))
  return inline?.slice('--config='.length) ?? env[CONFIG_ENV]
}

/**
 * The coordinator process: JSON log lines (`log.level`, `sluice.log.format`); with a metric reporter
 * prints `metrics=http://host:port/metrics`, then `coordinator <id> listening on host:port`.
 */
async function main(): Promise<void> {
  const filePath = configPath(process.argv.slice(2), process.env)
  const { config, warnings } = loadServerConfig({
    ...(filePath === undefined ? {} : { filePath }),
    env: process.env,
  })
  const logger = loggerFromConfig(config, 'coordinator')
  for (const warning of warnings) logger.warn(warning)
  const metrics = await startProcessMetrics(config, { scope: 'coordinator', emfMetrics: EMF_METRICS })
  if (metrics?.endpoint !== undefined) console.log(`metrics=${metrics.endpoint.url}`)
  const metaStore = metaStoreFromConfig(config)
  // In ECS a wildcard listener is advertised at the task's private address.
  const ecsMetadata = process.env.ECS_CONTAINER_METADATA_URI_V4
  const wildcardAdvertisedHost =
    ecsMetadata === undefined ? undefined : await ecsTaskPrivateAddress(ecsMetadata)
  const server = new CoordinatorServer({
    config,
    metaStore,
    logger,
    ...(wildcardAdvertisedHost === undefined ? {} : { wildcardAdvertisedHost }),
    ...(metrics === undefined ? {} : { metrics: metrics.registry }),
  })
  await server.start()
  const [listener] = server.boundEndpoints
  console.log(`coordinator ${server.id} listening on ${listener.host}:${listener.port}`)
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('coordinator stopping', { signal })
    try {
      await server.stop()
      await metaStore.close()
      await metrics?.close()
      process.exit(0)
    } catch (e) {
      logger.warn('coordinator did not stop cleanly', { error: e })
      process.exit(1)
    }
  }
  stopOnSignalsOrParentExit(stop)
}

main().catch(e => {
  createLogger({ component: 'coordinator' }).error('failed to start', { error: e })
  process.exit(1)
})
