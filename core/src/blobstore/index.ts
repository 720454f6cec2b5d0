// The BlobStore interface, the memory and filesystem stores, the URI factory and the key registry.
// The S3 adapter lives in `@sluice/core/blobstore/s3` and is loaded only when an s3:// URI is opened.
export * from './blob-key.js'
export * from './blob-store.js'
export * from './create-blob-store.js'
export * from './fs-blob-store.js'
export * from './keys.js'
export * from './memory-blob-store.js'
