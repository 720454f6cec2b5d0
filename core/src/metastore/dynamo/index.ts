export * from './dynamo-metastore.js'
export * from './dynamo-table.js'
export * from './from-config.js'
export * from './item-codec.js'
