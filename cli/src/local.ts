import { resolve } from 'node:path'
import { Configuration, LOCAL_MODE_SERVER_CONFIG } from '@sluice/core/config'
import { createLogger } from '@sluice/core/log'
import { type ProcessMetrics, startProcessMetrics } from '@sluice/core/metrics'
import { type LocalTieringScheduler, startLocalTieringScheduler, TieringMetrics } from '@sluice/tiering'
import {
  generatePassword,
  LOCAL_METRICS_CONFIG,
  LocalCluster,
  type LocalClusterSecurity,
} from './cluster/index.js'

export interface LocalModeOptions {
  readonly dataDir: string
  readonly tabletServers: number
  readonly coordinatorPort: number
  /** `host:port` of the HTTP gateway, or undefined to run without it. */
  readonly gatewayListen: string | undefined
  /** Period of the local lake-tiering scheduler (0 disables it). */
  readonly tieringIntervalMs: number
  readonly echo: boolean
  /** `SLUICE_SECURITY`: 'none' (PLAINTEXT, the default) or 'sasl' (SASL/PLAIN + ACLs). */
  readonly security: 'none' | 'sasl'
}

/** The super user a `SLUICE_SECURITY=sasl` local cluster creates (with a generated password). */
export const LOCAL_ADMIN = 'admin'

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
  const security = (env.SLUICE_SECURITY ?? 'none').toLowerCase()
  if (security !== 'none' && security !== 'sasl') {
    throw new Error(`SLUICE_SECURITY must be 'none' or 'sasl', got '${env.SLUICE_SECURITY}'`)
  }
  return {
    security,
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
  const security: LocalClusterSecurity | undefined =
    options.security === 'sasl'
      ? { users: { [LOCAL_ADMIN]: generatePassword() }, superUsers: [LOCAL_ADMIN] }
      : undefined
  const cluster = await LocalCluster.start({
    dataDir: options.dataDir,
    tabletServers: options.tabletServers,
    coordinatorPort: options.coordinatorPort,
    serverConfig: LOCAL_MODE_SERVER_CONFIG,
    echo: options.echo,
    metrics: true,
    ...(security === undefined ? {} : { security }),
  })
  const aws = cluster.aws
  console.log(`local AWS: dynamodb=${aws.dynamo?.endpoint} blobs=${aws.blobStoreUri}`)
  for (const [id, t] of cluster.tablets) console.log(`tablet-server ${id}: ${t.host}:${t.port}`)
  console.log(`logs: ${options.dataDir}/logs`)
  if (options.gatewayListen !== undefined)
    await cluster.startGateway(
      options.gatewayListen,
      cluster.clientConfig(security === undefined ? undefined : LOCAL_ADMIN),
    )
  const tieringMetrics =
    options.tieringIntervalMs === 0
      ? undefined
      : await startProcessMetrics(Configuration.load({ ...LOCAL_METRICS_CONFIG }), { scope: 'tiering' })
  const tiering = await startTiering(cluster, options.tieringIntervalMs, tieringMetrics)
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (cluster.gatewayUrl !== undefined) console.log(`gateway=${cluster.gatewayUrl}`)
  console.log(`bootstrap.servers=${cluster.bootstrapServers}`)
  for (const line of securityBanner(security)) console.log(line)
  for (const { name, url } of cluster.metricsEndpoints) console.log(`${name}: metrics=${url}`)
  if (tiering !== undefined && tieringMetrics?.endpoint)
    console.log(`tiering: metrics=${tieringMetrics.endpoint.url}`)
  await new Promise<void>(resolveStop => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      console.log(`\n${signal}: stopping ...`)
      Promise.resolve(tiering?.stop())
        .then(() => tieringMetrics?.close())
        .then(() => cluster.stop())
        .then(() => console.log('stopped'))
        .catch(e => console.error('error while stopping:', e))
        .finally(resolveStop)
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
}

/**
 * The security lines of the ready banner: the generated admin credentials of a SASL cluster (as
 * client options), or a warning that the listeners are open.
 */
export function securityBanner(security: LocalClusterSecurity | undefined): string[] {
  if (security === undefined) {
    return [
      'WARNING: PLAINTEXT listeners without authentication or ACLs: anyone who reaches these ports can read, write and drop every table. Start with SLUICE_SECURITY=sasl for SASL/PLAIN and ACLs.',
    ]
  }
  return [
    'client.security.protocol=SASL',
    'client.security.sasl.mechanism=PLAIN',
    `security.sasl.username=${LOCAL_ADMIN}`,
    `security.sasl.password=${security.users[LOCAL_ADMIN]}`,
  ]
}

/** The same tiering code the Lambda runs, called by a local timer (tables with `table.datalake.enabled`). */
async function startTiering(
  cluster: LocalCluster,
  intervalMs: number,
  metrics: ProcessMetrics | undefined,
): Promise<LocalTieringScheduler | undefined> {
  if (intervalMs === 0) return undefined
  const logger = createLogger({ component: 'tiering', format: 'text' })
  return startLocalTieringScheduler({
    ...(metrics === undefined ? {} : { observer: new TieringMetrics(metrics.registry) }),
    config: Configuration.load({ ...cluster.aws.config }),
    intervalMs,
    metaStore: cluster.aws.metaStore(),
    blobStore: cluster.aws.blobStore(),
    onPass: summary => {
      const rounds = summary.rounds ?? []
      for (const r of rounds) logger.info(`round ${r.status}`, { table: r.table, records: r.records ?? 0 })
      if (summary.error !== undefined) logger.warn('tiering pass failed', { error: summary.error })
    },
  })
}
