// Test fixtures of tiering: a lake in a temporary directory, a tiering environment with uploaded
// segments, a blob store that fails on demand, and the pyiceberg peer.
export * from './faulty-blob-store.js'
export * from './pyiceberg.js'
export * from './temp-lake.js'
export * from './tiering-env.js'
