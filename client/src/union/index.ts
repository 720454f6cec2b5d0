// Union reads: a table's Iceberg lake snapshot plus the log after its `fluss-offsets`.
export { blobStoreLakeSource, type LakeSource } from '@sluice/lake/io'
export * from './lake-snapshot.js'
export * from './log-tail.js'
export * from './union-merge.js'
export * from './union-scan.js'
