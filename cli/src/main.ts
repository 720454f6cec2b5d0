import { localModeOptions, runLocal } from './local.js'

const USAGE = `usage: sluice <command>

commands:
  local     run a local cluster (local AWS endpoints, a coordinator, tablet servers) until Ctrl-C
            env: SLUICE_DATA_DIR (default .sluice), SLUICE_TABLETS (default 3), SLUICE_PORT (default 9123),
                 SLUICE_GATEWAY (default 127.0.0.1:8080, 'off' to disable),
                 SLUICE_TIERING_INTERVAL_MS (default 5000, 0 disables), SLUICE_ECHO=1 to echo server output,
                 SLUICE_SECURITY=sasl for SASL/PLAIN + ACLs (prints generated admin credentials)`

async function main(argv: string[]): Promise<number> {
  const [command] = argv
  switch (command) {
    case 'local':
      await runLocal(localModeOptions(process.env, process.cwd()))
      return 0
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE)
      return command === undefined ? 1 : 0
    default:
      console.error(`unknown command '${command}'\n\n${USAGE}`)
      return 1
  }
}

main(process.argv.slice(2)).then(
  code => {
    process.exitCode = code
  },
  e => {
    console.error(e instanceof Error ? e.message : e)
    process.exitCode = 1
  },
)
