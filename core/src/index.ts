export * from './types/data-type.js'
export * from './row/value.js'
