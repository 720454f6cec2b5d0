/**
 * @sluice/lake: the lake format, shared by the SDK's union read and the tiering function. Iceberg v2
 * metadata, manifests and Avro (`@sluice/lake/iceberg`), Parquet data and delete files
 * (`@sluice/lake/parquet`), lake locations over a BlobStore (`@sluice/lake/io`) and merge-on-read
 * of a snapshot (`@sluice/lake/scan`). It imports only `@sluice/core`.
 */
export * from './iceberg/index.js'
export * from './io/index.js'
export * from './parquet/index.js'
export * from './scan/index.js'
