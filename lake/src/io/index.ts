// Lake files over a BlobStore: absolute Iceberg locations to blob keys, for writers and readers.
export * from './file-io.js'
export * from './lake-source.js'
