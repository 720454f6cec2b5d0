export * from './bucket-assigner.js'
export * from './bucketing-function.js'
export * from './murmur.js'
