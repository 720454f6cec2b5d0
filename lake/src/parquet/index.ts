// Parquet data and equality-delete files of lake tables (parquet-wasm).
export * from './arrow-data-file-writer.js'
export * from './column-stats.js'
export * from './data-file-writer.js'
export * from './delete-file-writer.js'
export * from './parquet-file.js'
export * from './write-context.js'
