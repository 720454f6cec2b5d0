export * from './local-cluster.js'
export * from './local-security.js'
export * from './server-process.js'
