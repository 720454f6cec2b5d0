import { resolve } from 'node:path'
import { LocalCluster } from './cluster/index.js'

export interface LocalModeOptions {
  readonly dataDir: string
  readonly tabletServers: number
  readonly coordinatorPort: number
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
  return {
    dataDir: resolve(cwd, env.SLUICE_DATA_DIR ?? '.sluice'),
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
    echo: options.echo,
  })
  const aws = cluster.aws
  console.log(`local AWS: dynamodb=${aws.dynamo?.endpoint} blobs=${aws.blobStoreUri}`)
  for (const [id, t] of cluster.tablets) console.log(`tablet-server ${id}: ${t.host}:${t.port}`)
  console.log(`logs: ${options.dataDir}/logs`)
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  console.log(`bootstrap.servers=${cluster.bootstrapServers}`)
  await new Promise<void>(resolveStop => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      console.log(`\n${signal}: stopping ...`)
      cluster
        .stop()
        .then(() => console.log('stopped'))
        .catch(e => console.error('error while stopping:', e))
        .finally(resolveStop)
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
}
