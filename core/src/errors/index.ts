export * from './codes.js'
export * from './fluss-error.js'
