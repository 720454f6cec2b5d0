import { readFileSync } from 'node:fs'
import { FlussError } from '../errors/index.js'
import { parseConfigFile } from './config-file.js'
import { Configuration } from './configuration.js'
import { isSecretKey } from './options.js'
import { SLUICE_LOCAL_DATA_DIR } from './options-sluice.js'

/** The environment variable holding a JSON object of option keys to values. */
export const FLUSS_CONF_ENV = 'FLUSS_CONF'
/** The environment variable naming the local data directory (`sluice.local.data-dir`). */
export const SLUICE_DATA_DIR_ENV = 'SLUICE_DATA_DIR'
/**
 * Secrets as a JSON object of secret option keys (JAAS configs, passwords): what ECS injects from
 * AWS Secrets Manager at task start.
 */
export const SLUICE_SECRETS_ENV = 'SLUICE_SECRETS'
/** A file holding the same JSON object (local deployments; readable by the server's user only). */
export const SLUICE_SECRETS_FILE_ENV = 'SLUICE_SECRETS_FILE'
/**
 * Further secrets, one JSON object of secret keys per variable `SLUICE_SECRETS_<NAME>` (NAME: upper
 * case letters, digits, `_`): one Secrets Manager secret each, e.g. a generated credential or a
 * TLS certificate, injected by ECS beside SLUICE_SECRETS.
 */
export const SLUICE_SECRETS_ENV_PREFIX = 'SLUICE_SECRETS_'
/**
 * Functions (which ECS does not start) name their secrets instead: ARNs of Secrets Manager
 * secrets, separated by commas, each a JSON object of secret keys, read at cold start.
 */
export const SLUICE_SECRET_ARNS_ENV = 'SLUICE_SECRET_ARNS'

export interface ServerConfigSources {
  /** A flat YAML file (`server.yaml`) of Fluss keys; optional. */
  readonly filePath?: string
  /** The process environment (only FLUSS_CONF, SLUICE_DATA_DIR, SLUICE_SECRETS, SLUICE_SECRETS_<NAME> and SLUICE_SECRETS_FILE are read). */
  readonly env: Readonly<Record<string, string | undefined>>
}

export interface LoadedServerConfig {
  readonly config: Configuration
  /** Keys that were ignored (Fluss options Sluice does not use, foreign keys). */
  readonly warnings: readonly string[]
}

/**
 * Builds a server's configuration. Precedence, highest first: the secrets (SLUICE_SECRETS, then
 * SLUICE_SECRETS_FILE, then SLUICE_SECRETS_<NAME> in name order), FLUSS_CONF, SLUICE_DATA_DIR, the file, the options' defaults. Every source
 * is validated on its own so errors name it; the secret sources may only hold secret keys.
 */
export function loadServerConfig(sources: ServerConfigSources): LoadedServerConfig {
  const fromFile =
    sources.filePath === undefined
      ? new Configuration()
      : Configuration.load(parseConfigFile(readConfigFile(sources.filePath), sources.filePath), {
          source: sources.filePath,
        })
  const dataDir = sources.env[SLUICE_DATA_DIR_ENV]
  const fromDataDir = Configuration.load(dataDir ? { [SLUICE_LOCAL_DATA_DIR.key]: dataDir } : {}, {
    source: SLUICE_DATA_DIR_ENV,
  })
  const fromEnv = Configuration.load(parseFlussConf(sources.env[FLUSS_CONF_ENV]), { source: FLUSS_CONF_ENV })
  let config = fromFile.with(fromDataDir).with(fromEnv)
  for (const name of namedSecretVariables(sources.env).reverse())
    config = config.with(loadSecrets(sources.env[name], name))
  config = config
    .with(loadSecrets(readSecretsFile(sources.env[SLUICE_SECRETS_FILE_ENV]), SLUICE_SECRETS_FILE_ENV))
    .with(loadSecrets(sources.env[SLUICE_SECRETS_ENV], SLUICE_SECRETS_ENV))
  return { config, warnings: config.warnings }
}

/** The SLUICE_SECRETS_<NAME> variables present, in name order. */
export function namedSecretVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter(
      k =>
        k.startsWith(SLUICE_SECRETS_ENV_PREFIX) &&
        k !== SLUICE_SECRETS_FILE_ENV &&
        /^[A-Z0-9_]+$/.test(k.slice(SLUICE_SECRETS_ENV_PREFIX.length)) &&
        k.length > SLUICE_SECRETS_ENV_PREFIX.length,
    )
    .sort()
}

function readSecretsFile(path: string | undefined): string | undefined {
  if (path === undefined || path === '') return undefined
  return readConfigFile(path)
}

/** A secrets source: a JSON object whose keys must all be secret options (never logged). */
function loadSecrets(text: string | undefined, source: string): Configuration {
  const values = parseJsonObject(text, source)
  for (const key of Object.keys(values)) {
    if (!isSecretKey(key))
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `${source}: '${key}' is not a secret option; only secrets (JAAS configs, passwords) belong there.`,
      )
  }
  return Configuration.load(values, { source })
}

/** Parses the FLUSS_CONF value: a JSON object of keys to strings, numbers, booleans or string lists. */
export function parseFlussConf(text: string | undefined): Record<string, unknown> {
  return parseJsonObject(text, FLUSS_CONF_ENV)
}

function parseJsonObject(text: string | undefined, source: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e)
    // The reason may quote the text; never for secrets.
    const detail = source === FLUSS_CONF_ENV ? `: ${reason}` : ''
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `${source} is not valid JSON${detail}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `${source} must be a JSON object of option keys to values.`,
    )
  }
  return value as Record<string, unknown>
}

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e)
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `Cannot read configuration file '${path}': ${reason}`)
  }
}
