export * from './local-cluster.js'
export * from './server-process.js'
