export * from './cluster/index.js'
export * from './local.js'
