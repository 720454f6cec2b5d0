// The BlobStore interface, the memory and filesystem stores and the URI factory. The S3 adapter
// lives in `@sluice/core/blobstore/s3` and is loaded only when an s3:// URI is opened.
export * from './blob-key.js'
export * from './blob-store.js'
export * from './create-blob-store.js'
export * from './fs-blob-store.js'
export * from './memory-blob-store.js'
