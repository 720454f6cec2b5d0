export * from './data-type.js'
export * from './json.js'
export * from './type-string.js'
export * from './type-widening.js'
