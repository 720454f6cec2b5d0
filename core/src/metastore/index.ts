// The MetaStore interface, the in-memory twin and the key registry. The DynamoDB adapter lives in
// `@sluice/core/metastore/dynamo`, so importing this module never loads the AWS SDK.
export * from './allocate-id.js'
export * from './aws-options.js'
export * from './conflict.js'
export * from './item-validation.js'
export * from './keys.js'
export * from './memory-metastore.js'
export * from './metastore.js'
export * from './table-definition.js'
