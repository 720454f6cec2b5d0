// @sluice/tiering: Iceberg tiering of lake-enabled tables (Lambda handler, local scheduler, status).
export * from './handler.js'
export * from './local-scheduler.js'
export * from './scheduler.js'
export * from './services.js'
export * from './status.js'
export * from './tiering-metrics.js'
