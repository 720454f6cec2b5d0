export * from './acls.js'
export * from './admin.js'
export * from './list-offsets.js'
export * from './partition-info.js'
