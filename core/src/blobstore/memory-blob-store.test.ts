import { blobStoreContract } from './contract/index.js'
import { MemoryBlobStore } from './memory-blob-store.js'

blobStoreContract('MemoryBlobStore', () => new MemoryBlobStore(), { partBytes: 64 * 1024 })
