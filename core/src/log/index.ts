export * from './config-logger.js'
export * from './logger.js'
