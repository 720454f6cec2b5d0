import { readFileSync } from 'node:fs'
import { Connection } from '@sluice/client'
import { parseConfigFile } from '@sluice/core/config'
import { isFlussError } from '@sluice/core/errors'
import { type TablePath, tablePath } from '@sluice/core/metadata'

/**
 * Exit codes a script can trust (docs/cli.md): 0 done; 1 the cluster refused or failed the
 * operation; 2 bad usage or input; 3 the database, table or partition does not exist; 4 produce
 * wrote its good rows but rejected some (within --max-errors); 5 the cluster cannot be reached.
 */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, NOT_FOUND: 3, REJECTED_ROWS: 4, UNREACHABLE: 5 } as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A failure with the exit code it ends the command with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message)
  }
}

/** The options every cluster command takes. */
export interface GlobalOptions {
  readonly bootstrap?: string
  /** `key=value` client properties (repeatable), e.g. security options. */
  readonly property?: readonly string[]
  /** A client config file (YAML `key: value` lines or `key=value` properties). */
  readonly config?: string
  readonly output?: 'table' | 'json'
  readonly securityProtocol?: string
  readonly saslMechanism?: string
  readonly saslUsername?: string
  readonly saslPassword?: string
  readonly saslPasswordFile?: string
  readonly sslCaFile?: string
  readonly sslCertificateFile?: string
  readonly sslKeyFile?: string
}

/** Environment variables the security options fall back to. */
export const SASL_USERNAME_ENV = 'SLUICE_SASL_USERNAME'
export const SASL_PASSWORD_ENV = 'SLUICE_SASL_PASSWORD'

/** Where commands write (stdout and stderr in the binary; buffers in tests). */
export interface Io {
  out(text: string): void
  err(text: string): void
  readonly stdoutIsTty: boolean
  readonly stderrIsTty: boolean
  readonly env: NodeJS.ProcessEnv
  readonly stdin: NodeJS.ReadableStream
  /** Ends the command with this code though it did not fail (produce with rejected rows). */
  setExitCode(code: ExitCode): void
}

/**
 * The client configuration of a command: the config file, then `--property` pairs, then
 * `--bootstrap` (or SLUICE_BOOTSTRAP), each overriding the one before. Unknown keys are refused by
 * the SDK's Configuration, so a typo fails with exit code 2.
 */
export function clientConfig(options: GlobalOptions, env: NodeJS.ProcessEnv): Record<string, string> {
  const config: Record<string, string> = {}
  if (options.config !== undefined) {
    let text: string
    try {
      text = readFileSync(options.config, 'utf8')
    } catch (e) {
      throw new CliError(`cannot read --config ${options.config}: ${(e as Error).message}`, EXIT.USAGE)
    }
    Object.assign(config, parseConfigFile(text, options.config))
  }
  for (const pair of options.property ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new CliError(`--property '${pair}' is not key=value`, EXIT.USAGE)
    config[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim()
  }
  Object.assign(config, securityConfig(options, env, config))
  const bootstrap = options.bootstrap ?? env.SLUICE_BOOTSTRAP ?? config['bootstrap.servers']
  if (bootstrap === undefined || bootstrap === '')
    throw new CliError('no cluster given: pass --bootstrap host:port or set SLUICE_BOOTSTRAP', EXIT.USAGE)
  config['bootstrap.servers'] = bootstrap
  return config
}

/**
 * The `client.security.*` options of the security flags (over `--property` and `--config`): the
 * protocol, SASL mechanism and user, the password from `--sasl-password`, `--sasl-password-file` or
 * SLUICE_SASL_PASSWORD (in that order), and the TLS files. Errors never quote a password.
 */
export function securityConfig(
  options: GlobalOptions,
  env: NodeJS.ProcessEnv,
  base: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {}
  const set = (key: string, value: string | undefined) => {
    if (value !== undefined && value !== '') out[key] = value
  }
  set('client.security.protocol', options.securityProtocol)
  set('client.security.sasl.mechanism', options.saslMechanism)
  set('client.security.sasl.username', options.saslUsername ?? env[SASL_USERNAME_ENV])
  set('client.security.ssl.ca-file', options.sslCaFile)
  set('client.security.ssl.certificate-file', options.sslCertificateFile)
  set('client.security.ssl.key-file', options.sslKeyFile)
  let password = options.saslPassword
  if (password === undefined && options.saslPasswordFile !== undefined) {
    let text: string
    try {
      text = readFileSync(options.saslPasswordFile, 'utf8')
    } catch (e) {
      throw new CliError(
        `cannot read --sasl-password-file ${options.saslPasswordFile}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`,
        EXIT.USAGE,
      )
    }
    password = text.split(/\r?\n/, 1)[0]
    if (password === '')
      throw new CliError(`--sasl-password-file ${options.saslPasswordFile} is empty`, EXIT.USAGE)
  }
  set('client.security.sasl.password', password ?? env[SASL_PASSWORD_ENV])
  const protocol = (
    out['client.security.protocol'] ??
    base['client.security.protocol'] ??
    'PLAINTEXT'
  ).toUpperCase()
  const sasl = protocol === 'SASL' || protocol === 'SASL_SSL'
  const tls = protocol === 'SSL' || protocol === 'SASL_SSL'
  if (
    !sasl &&
    (options.saslUsername !== undefined ||
      options.saslPassword !== undefined ||
      options.saslPasswordFile !== undefined)
  )
    throw new CliError(
      `the SASL options need --security-protocol SASL or SASL_SSL (the protocol is ${protocol})`,
      EXIT.USAGE,
    )
  if (!tls && (options.sslCaFile ?? options.sslCertificateFile ?? options.sslKeyFile) !== undefined)
    throw new CliError(
      `the --ssl-* options need --security-protocol SSL or SASL_SSL (the protocol is ${protocol})`,
      EXIT.USAGE,
    )
  if (!sasl) {
    // SLUICE_SASL_* only apply when SASL is used.
    delete out['client.security.sasl.username']
    delete out['client.security.sasl.password']
  }
  return out
}

/** Runs `fn` with a connection to the cluster, closing it afterwards. */
export async function withConnection<T>(
  options: GlobalOptions,
  io: Io,
  fn: (connection: Connection) => Promise<T>,
): Promise<T> {
  const config = clientConfig(options, io.env)
  let connection: Connection
  try {
    connection = await Connection.create(config)
  } catch (e) {
    if (isFlussError(e, 'INVALID_CONFIG_EXCEPTION')) throw new CliError(e.message, EXIT.USAGE)
    // Refused credentials (AUTHENTICATE_EXCEPTION, ...): the cluster answered, exit 1.
    if (isFlussError(e) && e.errorName !== 'NETWORK_EXCEPTION') throw e
    throw new CliError(
      `cannot reach ${config['bootstrap.servers']}: ${(e as Error).message}`,
      EXIT.UNREACHABLE,
    )
  }
  try {
    return await fn(connection)
  } finally {
    await connection.close().catch(() => undefined)
  }
}

/** `db.table` (a name without a dot is refused). */
export function parseTablePath(text: string): TablePath {
  const dot = text.indexOf('.')
  if (dot <= 0 || dot === text.length - 1)
    throw new CliError(`'${text}' is not a table name of the form database.table`, EXIT.USAGE)
  return tablePath(text.slice(0, dot), text.slice(dot + 1))
}

const NOT_FOUND = new Set([
  'DATABASE_NOT_EXIST',
  'TABLE_NOT_EXIST',
  'PARTITION_NOT_EXISTS',
  'LAKE_SNAPSHOT_NOT_EXIST',
])
const USAGE = new Set([
  'INVALID_CONFIG_EXCEPTION',
  'INVALID_TABLE_EXCEPTION',
  'INVALID_ALTER_TABLE_EXCEPTION',
  'INVALID_DATABASE_EXCEPTION',
  'INVALID_REQUEST',
])

/** The exit code and message of any failure. */
export function failureOf(e: unknown): { code: ExitCode; message: string } {
  if (e instanceof CliError) return { code: e.exitCode, message: e.message }
  if (isFlussError(e)) {
    const code = NOT_FOUND.has(e.errorName)
      ? EXIT.NOT_FOUND
      : USAGE.has(e.errorName)
        ? EXIT.USAGE
        : e.errorName === 'NETWORK_EXCEPTION'
          ? EXIT.UNREACHABLE
          : EXIT.FAILED
    return { code, message: `${e.errorName}: ${e.message}` }
  }
  return { code: EXIT.FAILED, message: e instanceof Error ? e.message : String(e) }
}
