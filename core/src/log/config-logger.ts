import type { Configuration } from '../config/configuration.js'
import { LOG_LEVEL, SLUICE_LOG_FORMAT } from '../config/options-metrics.js'
import { createLogger, type Logger, type LoggerOptions, parseLogLevels } from './logger.js'

/** The process logger of a server: `log.level` and `sluice.log.format` from its configuration. */
export function loggerFromConfig(
  config: Configuration,
  component: string,
  options: Pick<LoggerOptions, 'write' | 'nowMs'> = {},
): Logger {
  return createLogger({
    component,
    levels: parseLogLevels(config.get(LOG_LEVEL)),
    format: config.get(SLUICE_LOG_FORMAT),
    ...options,
  })
}
