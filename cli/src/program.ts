import { SASL_MECHANISM_NAMES, SECURITY_PROTOCOLS } from '@sluice/core/config'
import { Command, CommanderError, Option } from 'commander'
import { registerAclCommands } from './commands/acl-commands.js'
import { registerAdminCommands } from './commands/admin-commands.js'
import { EXIT, type ExitCode, failureOf, type Io } from './commands/context.js'
import { registerLakeCommands } from './commands/lake-commands.js'
import { registerProduce } from './commands/produce.js'
import { registerReadCommands } from './commands/read-commands.js'
import { registerTableCommands } from './commands/table-commands.js'

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** The `sluice` command line: every command, the global options, and the exit codes of docs/cli.md. */
export function buildProgram(io: Io): Command {
  const program = new Command('sluice')
    .description('Sluice: Fluss-style streaming storage. Talks to a cluster through the Fluss protocol.')
    .version('0.1.0')
    .option('-b, --bootstrap <servers>', 'host:port of a coordinator or load balancer (env SLUICE_BOOTSTRAP)')
    .option('-p, --property <key=value>', 'a client property, e.g. a security option (repeat)', collect)
    .option('-c, --config <file>', 'client properties from a file (YAML key: value, or key=value lines)')
    .addOption(
      new Option('--security-protocol <protocol>', 'PLAINTEXT, SASL, SSL or SASL_SSL').choices([
        ...SECURITY_PROTOCOLS,
      ]),
    )
    .addOption(
      new Option('--sasl-mechanism <mechanism>', 'PLAIN (default) or SCRAM-SHA-256').choices([
        ...SASL_MECHANISM_NAMES,
      ]),
    )
    .option('--sasl-username <name>', 'SASL user (env SLUICE_SASL_USERNAME)')
    .option(
      '--sasl-password <password>',
      'SASL password; prefer env SLUICE_SASL_PASSWORD or --sasl-password-file (arguments are visible to other users)',
    )
    .option('--sasl-password-file <file>', 'a file whose first line is the SASL password')
    .option('--ssl-ca-file <file>', 'PEM bundle the server certificate is verified against (SSL, SASL_SSL)')
    .option('--ssl-certificate-file <file>', 'PEM client certificate (mutual TLS)')
    .option('--ssl-key-file <file>', 'PEM private key of --ssl-certificate-file')
    .addOption(
      new Option(
        '-o, --output <format>',
        'table or json (default: table; tail and scan: JSON lines)',
      ).choices(['table', 'json']),
    )
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: s => io.out(s), writeErr: s => io.err(s) })
  program
    .command('local')
    .description(
      'run a local cluster (local AWS, a coordinator, tablet servers, gateway, tiering) until Ctrl-C; npm start',
    )
    .addHelpText(
      'after',
      `
environment:
  SLUICE_DATA_DIR (default .sluice), SLUICE_TABLETS (default 3), SLUICE_PORT (default 9123),
  SLUICE_GATEWAY (default 127.0.0.1:8080, 'off' disables it), SLUICE_TIERING_INTERVAL_MS (default 5000,
  0 disables it), SLUICE_ECHO=1 echoes server output, SLUICE_SECURITY=sasl starts SASL/PLAIN + ACLs and
  prints the generated admin credentials`,
    )
    .action(async () => {
      // Loaded only here: the local cluster pulls in local AWS and every service.
      const { localModeOptions, runLocal } = await import('./local.js')
      await runLocal(localModeOptions(io.env, process.cwd()))
    })
  registerAdminCommands(program, io)
  registerTableCommands(program, io)
  registerProduce(program, io)
  registerReadCommands(program, io)
  registerLakeCommands(program, io)
  registerAclCommands(program, io)
  for (const c of program.commands) {
    c.exitOverride()
    for (const sub of c.commands) sub.exitOverride()
  }
  return program
}

/** Runs the command line `argv` (without node and the script); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: Io): Promise<ExitCode> {
  let code: ExitCode = EXIT.OK
  const program = buildProgram({ ...io, setExitCode: c => (code = c) })
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return code
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0)
        return EXIT.OK
      if (e.code === 'commander.help') return EXIT.OK
      return EXIT.USAGE
    }
    const failure = failureOf(e)
    io.err(`sluice: ${failure.message}\n`)
    return failure.code
  }
}
