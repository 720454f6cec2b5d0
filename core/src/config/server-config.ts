import { readFileSync } from 'node:fs'
import { FlussError } from '../errors/index.js'
import { parseConfigFile } from './config-file.js'
import { Configuration } from './configuration.js'
import { SLUICE_LOCAL_DATA_DIR } from './options-sluice.js'

/** The environment variable holding a JSON object of option keys to values. */
export const FLUSS_CONF_ENV = 'FLUSS_CONF'
/** The environment variable naming the local data directory (`sluice.local.data-dir`). */
export const SLUICE_DATA_DIR_ENV = 'SLUICE_DATA_DIR'

export interface ServerConfigSources {
  /** A flat YAML file (`server.yaml`) of Fluss keys; optional. */
  readonly filePath?: string
  /** The process environment (only FLUSS_CONF and SLUICE_DATA_DIR are read). */
  readonly env: Readonly<Record<string, string | undefined>>
}

export interface LoadedServerConfig {
  readonly config: Configuration
  /** Keys that were ignored (Fluss options Sluice does not use, foreign keys). */
  readonly warnings: readonly string[]
}

/**
 * Builds a server's configuration. Precedence, highest first: FLUSS_CONF, SLUICE_DATA_DIR, the
 * file, the options' defaults. Every source is validated on its own so errors name it.
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
  const config = fromFile.with(fromDataDir).with(fromEnv)
  return { config, warnings: config.warnings }
}

/** Parses the FLUSS_CONF value: a JSON object of keys to strings, numbers, booleans or string lists. */
export function parseFlussConf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e)
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `${FLUSS_CONF_ENV} is not valid JSON: ${reason}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `${FLUSS_CONF_ENV} must be a JSON object of option keys to values.`,
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
