export * from './s3-blob-store.js'
export * from './s3-bucket.js'
