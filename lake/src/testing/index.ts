// Test fixtures of the lake format: Fluss tables, and lake files in a temporary directory.
export * from './tables.js'
export * from './temp-lake-files.js'
