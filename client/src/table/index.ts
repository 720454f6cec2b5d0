export * from './row-converter.js'
export * from './table.js'
