export * from './bootstrap.js'
export * from './dynalite-server.js'
export * from './local-aws.js'
export * from './s3rver-process.js'
