import { loadServerConfig, stopOnSignalsOrParentExit } from '@sluice/core/config'
import { metaStoreFromConfig } from '@sluice/core/metastore/dynamo'
import type { CoordinatorLogger } from './clock.js'
import { CoordinatorServer } from './coordinator-server.js'

/** The environment variable naming the config file when `--config` is not given. */
const CONFIG_ENV = 'SLUICE_CONFIG'

function configPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const i = argv.indexOf('--config')
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1]
  const inline = argv.find(a => a.startsWith('--config='))
  return inline?.slice('--config='.length) ?? env[CONFIG_ENV]
}

const stderrLogger: CoordinatorLogger = {
  info: (message, fields) => console.error(JSON.stringify({ level: 'info', message, ...fields })),
  warn: (message, fields) => console.error(JSON.stringify({ level: 'warn', message, ...fields })),
}

async function main(): Promise<void> {
  const filePath = configPath(process.argv.slice(2), process.env)
  const { config, warnings } = loadServerConfig({
    ...(filePath === undefined ? {} : { filePath }),
    env: process.env,
  })
  for (const warning of warnings) stderrLogger.warn(warning)
  const metaStore = metaStoreFromConfig(config)
  const server = new CoordinatorServer({ config, metaStore, logger: stderrLogger })
  await server.start()
  const [listener] = server.boundEndpoints
  console.log(`coordinator ${server.id} listening on ${listener.host}:${listener.port}`)
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    stderrLogger.info('coordinator stopping', { signal })
    try {
      await server.stop()
      await metaStore.close()
      process.exit(0)
    } catch (e) {
      stderrLogger.warn('coordinator did not stop cleanly', { error: String(e) })
      process.exit(1)
    }
  }
  stopOnSignalsOrParentExit(stop)
}

main().catch(e => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e))
  process.exit(1)
})
