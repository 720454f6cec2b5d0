export * from './row/value.js'
export * from './types/data-type.js'
