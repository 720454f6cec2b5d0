export * from './data-type.js'
export * from './json.js'
