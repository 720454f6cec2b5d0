export * from './crc32c-js.js'
export * from './lz4.js'
export * from './optional-module.js'
