export * from './kv-record-batch.js'
export * from './kv-record-batch-builder.js'
export * from './kv-record-batch-format.js'
export * from './value-record-batch.js'
