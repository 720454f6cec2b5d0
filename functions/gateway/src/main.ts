import { BOOTSTRAP_SERVERS, FLUSS_CONF_ENV, loadServerConfig } from '@sluice/core/config'
import { createLogger, loggerFromConfig } from '@sluice/core/log'
import { startProcessMetrics } from '@sluice/core/metrics'
import { stopOnSignalsOrParentExit } from '@sluice/core/process'
import { connectClusterBackend } from './backend/cluster-backend.js'
import { startGatewayServer } from './server.js'

/**
 * Runs the gateway as a local HTTP server: `node functions/gateway/dist/main.js [server.yaml]`.
 * Configuration: the optional YAML file, then FLUSS_CONF (the only environment variable read);
 * `bootstrap.servers` names the cluster, `gateway.rest.listen` the address (127.0.0.1:8080).
 */
async function main(): Promise<void> {
  const filePath = process.argv[2]
  const { config, warnings } = loadServerConfig({
    ...(filePath === undefined ? {} : { filePath }),
    env: { [FLUSS_CONF_ENV]: process.env[FLUSS_CONF_ENV] },
  })
  const logger = loggerFromConfig(config, 'gateway')
  for (const w of warnings) logger.warn(w)
  const metrics = await startProcessMetrics(config, { scope: 'gateway' })
  if (metrics?.endpoint !== undefined) console.log(`metrics=${metrics.endpoint.url}`)
  const cluster = await connectClusterBackend(config)
  const server = await startGatewayServer({
    config,
    backend: cluster.backend,
    logger,
    ...(metrics === undefined ? {} : { metrics: metrics.registry }),
  })
  console.log(
    `Sluice gateway listening on ${server.url} (bootstrap.servers=${config.get(BOOTSTRAP_SERVERS)})`,
  )
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    server
      .close()
      .then(() => cluster.close())
      .then(() => metrics?.close())
      .then(
        () => process.exit(0),
        e => {
          logger.error('graceful stop failed', { error: e })
          process.exit(1)
        },
      )
  }
  stopOnSignalsOrParentExit(stop)
}

main().catch(e => {
  createLogger({ component: 'gateway' }).error('failed to start', { error: e })
  process.exit(1)
})
