import { metaStoreContract } from './contract/index.js'
import { MemoryMetaStore } from './memory-metastore.js'

metaStoreContract('MemoryMetaStore', () => new MemoryMetaStore())
