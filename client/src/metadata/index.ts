export * from './cluster.js'
export * from './metadata-updater.js'
