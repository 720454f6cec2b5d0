export * from './codes.js'
export * from './docgen.js'
export * from './fluss-error.js'
