import { resolve } from 'node:path'
import { Configuration, LOCAL_MODE_SERVER_CONFIG } from '@sluice/core/config'
import { type LocalTieringScheduler, startLocalTieringScheduler } from '@sluice/tiering'
import { LocalCluster } from './cluster/index.js'

export interface LocalModeOptions {
  readonly dataDir: string
  readonly tabletServers: number
  readonly coordinatorPort: number
  /** `host:port` of the HTTP gateway, or undefined to run without it. */
  readonly gatewayListen: string | undefined
  /** Period of the local lake-tiering scheduler (0 disables it). */
  readonly tieringIntervalMs: number
  readonly echo: boolean
}

/** Reads the local-mode settings from the environment (the CLI's only environment reader). */
export function localModeOptions(env: NodeJS.ProcessEnv, cwd: string): LocalModeOptions {
  const tablets = Number(env.SLUICE_TABLETS ?? '3')
  if (!Number.isInteger(tablets) || tablets < 1 || tablets > 64) {
    throw new Error(`SLUICE_TABLETS must be an integer from 1 to 64, got '${env.SLUICE_TABLETS}'`)
  }
  const port = Number(env.SLUICE_PORT ?? '9123')
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SLUICE_PORT must be a TCP port, got '${env.SLUICE_PORT}'`)
  }
  const gateway = env.SLUICE_GATEWAY ?? '127.0.0.1:8080'
  const tieringMs = Number(env.SLUICE_TIERING_INTERVAL_MS ?? '5000')
  if (!Number.isInteger(tieringMs) || tieringMs < 0) {
    throw new Error(
      `SLUICE_TIERING_INTERVAL_MS must be a non-negative integer, got '${env.SLUICE_TIERING_INTERVAL_MS}'`,
    )
  }
  return {
    tieringIntervalMs: tieringMs,
    dataDir: resolve(cwd, env.SLUICE_DATA_DIR ?? '.sluice'),
    gatewayListen: gateway === 'off' ? undefined : gateway,
    tabletServers: tablets,
    coordinatorPort: port,
    echo: env.SLUICE_ECHO === '1',
  }
}

/** `sluice local`: runs a whole cluster until SIGINT/SIGTERM, then stops it cleanly. */
export async function runLocal(options: LocalModeOptions): Promise<void> {
  const started = Date.now()
  console.log(`starting local cluster in ${options.dataDir} (${options.tabletServers} tablet servers) ...`)
  const cluster = await LocalCluster.start({
    dataDir: options.dataDir,
    tabletServers: options.tabletServers,
    coordinatorPort: options.coordinatorPort,
    serverConfig: LOCAL_MODE_SERVER_CONFIG,
    echo: options.echo,
  })
  const aws = cluster.aws
  console.log(`local AWS: dynamodb=${aws.dynamo?.endpoint} blobs=${aws.blobStoreUri}`)
  for (const [id, t] of cluster.tablets) console.log(`tablet-server ${id}: ${t.host}:${t.port}`)
  console.log(`logs: ${options.dataDir}/logs`)
  if (options.gatewayListen !== undefined) await cluster.startGateway(options.gatewayListen)
  const tiering = await startTiering(cluster, options.tieringIntervalMs)
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (cluster.gatewayUrl !== undefined) console.log(`gateway=${cluster.gatewayUrl}`)
  console.log(`bootstrap.servers=${cluster.bootstrapServers}`)
  await new Promise<void>(resolveStop => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      console.log(`\n${signal}: stopping ...`)
      Promise.resolve(tiering?.stop())
        .then(() => cluster.stop())
        .then(() => console.log('stopped'))
        .catch(e => console.error('error while stopping:', e))
        .finally(resolveStop)
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
}

/** The same tiering code the Lambda runs, called by a local timer (tables with `table.datalake.enabled`). */
async function startTiering(
  cluster: LocalCluster,
  intervalMs: number,
): Promise<LocalTieringScheduler | undefined> {
  if (intervalMs === 0) return undefined
  return startLocalTieringScheduler({
    config: Configuration.load({ ...cluster.aws.config }),
    intervalMs,
    metaStore: cluster.aws.metaStore(),
    blobStore: cluster.aws.blobStore(),
    onPass: summary => {
      const rounds = summary.rounds ?? []
      if (rounds.length > 0) console.log(`[tiering] ${JSON.stringify(rounds)}`)
    },
  })
}
