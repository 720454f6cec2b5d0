import { option } from './option.js'

/** Tablet server options of primary-key storage: KV snapshots, recovery, RocksDB tuning (per bucket). */

export const KV_COMPACTION_STYLES = ['LEVEL', 'UNIVERSAL', 'FIFO', 'NONE'] as const
export type KvCompactionStyle = (typeof KV_COMPACTION_STYLES)[number]
export const KV_COMPRESSION_TYPES = ['NO', 'SNAPPY', 'LZ4', 'ZSTD'] as const
export type KvCompressionType = (typeof KV_COMPRESSION_TYPES)[number]
export const KV_INFO_LOG_LEVELS = [
  'DEBUG_LEVEL',
  'INFO_LEVEL',
  'WARN_LEVEL',
  'ERROR_LEVEL',
  'FATAL_LEVEL',
  'HEADER_LEVEL',
  'NUM_INFO_LOG_LEVELS',
] as const
export type KvInfoLogLevel = (typeof KV_INFO_LOG_LEVELS)[number]

/** Fluss's `Long.MAX_VALUE` bytes per second, clamped to what a number holds exactly: no limit. */
export const UNLIMITED_BYTES_PER_SEC = Number.MAX_SAFE_INTEGER

const kv = (key: string) => option(key).inScope('server')

export const KV_SNAPSHOT_INTERVAL = kv('kv.snapshot.interval')
  .duration()
  .default('10min')
  .range(1)
  .description('How often each primary-key bucket leader uploads an incremental RocksDB snapshot.')

export const KV_SNAPSHOT_NUM_RETAINED = kv('kv.snapshot.num-retained')
  .int()
  .default(2)
  .range(1, 1000)
  .description('Completed KV snapshots kept per bucket; older ones are deleted from remote storage.')

export const KV_SNAPSHOT_LEASE_EXPIRATION_CHECK_INTERVAL = kv('kv.snapshot.lease.expiration-check-interval')
  .duration()
  .default('10min')
  .range(1)
  .notSupported('KV snapshot leases are not served')
  .description('How often expired KV snapshot leases (held by readers of snapshots) are released.')

export const KV_RECOVER_LOG_RECORD_BATCH_MAX_SIZE = kv('kv.recover.log-record-batch.max-size')
  .memory()
  .default('16mb')
  .range(1, '1gb')
  .description('Most log bytes read at once while replaying the changelog into RocksDB during recovery.')

export const KV_ROCKSDB_THREAD_NUM = kv('kv.rocksdb.thread.num')
  .int()
  .default(2)
  .range(1, 64)
  .description('Concurrent background flush and compaction jobs per bucket.')

export const KV_ROCKSDB_FILES_OPEN = kv('kv.rocksdb.files.open')
  .int()
  .default(-1)
  .range(-1)
  .description('Most files RocksDB keeps open per bucket; -1 means no limit.')

export const KV_ROCKSDB_LOG_MAX_FILE_SIZE = kv('kv.rocksdb.log.max-file-size')
  .memory()
  .default('25mb')
  .range(0, '1gb')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Size at which the RocksDB info log rolls; 0 writes one file.')

export const KV_ROCKSDB_LOG_FILE_NUM = kv('kv.rocksdb.log.file-num')
  .int()
  .default(4)
  .range(1, 1000)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Rolled RocksDB info log files kept.')

export const KV_ROCKSDB_LOG_DIR = kv('kv.rocksdb.log.dir')
  .string()
  .noDefault()
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Directory of RocksDB info logs; unset keeps them beside the data.')

export const KV_ROCKSDB_LOG_LEVEL = kv('kv.rocksdb.log.level')
  .enum(KV_INFO_LOG_LEVELS)
  .default('INFO_LEVEL')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description(
    'RocksDB info log level; raise only for troubleshooting, since the info log is not rotated by size unless configured.',
  )

export const KV_ROCKSDB_WRITE_BATCH_SIZE = kv('kv.rocksdb.write-batch-size')
  .memory()
  .default('2mb')
  .range(0, '1gb')
  .description('Bytes buffered in a RocksDB write batch before it is written; 0 flushes by item count only.')

export const KV_ROCKSDB_SHARED_RATE_LIMITER_BYTES_PER_SEC = kv('kv.rocksdb.shared-rate-limiter.bytes-per-sec')
  .memory()
  .default(UNLIMITED_BYTES_PER_SEC)
  .documentDefaultAs('unlimited')
  .range(1)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description(
    'Flush and compaction bytes per second shared by all RocksDB instances of a server; the default is unlimited.',
  )

export const KV_ROCKSDB_COMPACTION_STYLE = kv('kv.rocksdb.compaction.style')
  .enum(KV_COMPACTION_STYLES)
  .default('LEVEL')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('RocksDB compaction style.')

export const KV_ROCKSDB_COMPACTION_LEVEL_USE_DYNAMIC_SIZE = kv('kv.rocksdb.compaction.level.use-dynamic-size')
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Let RocksDB choose level target sizes dynamically (level_compaction_dynamic_level_bytes).')

export const KV_ROCKSDB_COMPRESSION_PER_LEVEL = kv('kv.rocksdb.compression.per.level')
  .enumList(KV_COMPRESSION_TYPES)
  .default('LZ4,LZ4,LZ4,LZ4,LZ4,ZSTD,ZSTD')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Compression of each RocksDB level, level 0 first; levels past the list use its last entry.')

export const KV_ROCKSDB_COMPACTION_LEVEL_TARGET_FILE_SIZE_BASE = kv(
  'kv.rocksdb.compaction.level.target-file-size-base',
)
  .memory()
  .default('64mb')
  .range(1, '64gb')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Target SST file size at level 1.')

export const KV_ROCKSDB_COMPACTION_LEVEL_MAX_SIZE_LEVEL_BASE = kv(
  'kv.rocksdb.compaction.level.max-size-level-base',
)
  .memory()
  .default('256mb')
  .range(1, '1tb')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Total size limit of the base level.')

export const KV_ROCKSDB_WRITEBUFFER_SIZE = kv('kv.rocksdb.writebuffer.size')
  .memory()
  .default('64mb')
  .range('64kb', '16gb')
  .description(
    'Memtable size before it is flushed to a sorted file. This also sizes the write-ahead log: RocksDB preallocates each WAL file at about 1.1 times this size, on every primary-key bucket replica, whatever the data (64mb: about 71 MB of disk per bucket). Lower it for small tables; `sluice local` (`npm start`) uses 4mb.',
  )

export const KV_ROCKSDB_WRITEBUFFER_COUNT = kv('kv.rocksdb.writebuffer.count')
  .int()
  .default(2)
  .range(1, 64)
  .description('Most memtables held in memory per bucket.')

export const KV_ROCKSDB_WRITEBUFFER_NUMBER_TO_MERGE = kv('kv.rocksdb.writebuffer.number-to-merge')
  .int()
  .default(1)
  .range(1, 64)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Memtables merged together before they are flushed.')

export const KV_ROCKSDB_BLOCK_BLOCKSIZE = kv('kv.rocksdb.block.blocksize')
  .memory()
  .default('4kb')
  .range(1, '64mb')
  .description('Approximate bytes of user data per SST block.')

export const KV_ROCKSDB_BLOCK_METADATA_BLOCKSIZE = kv('kv.rocksdb.block.metadata-blocksize')
  .memory()
  .default('4kb')
  .range(1, '64mb')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Approximate size of partitioned index blocks.')

export const KV_ROCKSDB_BLOCK_CACHE_SIZE = kv('kv.rocksdb.block.cache-size')
  .memory()
  .default('8mb')
  .range(0, '1tb')
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Block cache size per bucket.')

export const KV_ROCKSDB_USE_BLOOM_FILTER = kv('kv.rocksdb.use-bloom-filter')
  .boolean()
  .default(true)
  .description('Write a Bloom filter into every new SST file.')

export const KV_ROCKSDB_BLOOM_FILTER_BITS_PER_KEY = kv('kv.rocksdb.bloom-filter.bits-per-key')
  .double()
  .default(10)
  .range(1, 100)
  .description('Bloom filter bits per key.')

export const KV_ROCKSDB_BLOOM_FILTER_BLOCK_BASED_MODE = kv('kv.rocksdb.bloom-filter.block-based-mode')
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Use block-based instead of full Bloom filters.')

export const KV_ROCKSDB_BLOCK_CACHE_INDEX_AND_FILTER_BLOCKS = kv(
  'kv.rocksdb.block.cache-index-and-filter-blocks',
)
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Keep index and filter blocks in the block cache, so the cache size bounds them.')

export const KV_ROCKSDB_BLOCK_CACHE_INDEX_AND_FILTER_BLOCKS_WITH_HIGH_PRIORITY = kv(
  'kv.rocksdb.block.cache-index-and-filter-blocks-with-high-priority',
)
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Cache index and filter blocks with high priority (with cache-index-and-filter-blocks).')

export const KV_ROCKSDB_BLOCK_PIN_L0_FILTER_AND_INDEX_BLOCKS_IN_CACHE = kv(
  'kv.rocksdb.block.pin-l0-filter-and-index-blocks-in-cache',
)
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Pin level-0 index and filter blocks in the block cache (with cache-index-and-filter-blocks).')

export const KV_ROCKSDB_BLOCK_PIN_TOP_LEVEL_INDEX_AND_FILTER = kv(
  'kv.rocksdb.block.pin-top-level-index-and-filter',
)
  .boolean()
  .default(false)
  .notSupported('the RocksDB binding of the tablet server does not set this option')
  .description('Pin the top level of partitioned index and filter blocks in the block cache.')

export const KV_OPTIONS = [
  KV_SNAPSHOT_INTERVAL,
  KV_SNAPSHOT_NUM_RETAINED,
  KV_SNAPSHOT_LEASE_EXPIRATION_CHECK_INTERVAL,
  KV_RECOVER_LOG_RECORD_BATCH_MAX_SIZE,
  KV_ROCKSDB_THREAD_NUM,
  KV_ROCKSDB_FILES_OPEN,
  KV_ROCKSDB_LOG_MAX_FILE_SIZE,
  KV_ROCKSDB_LOG_FILE_NUM,
  KV_ROCKSDB_LOG_DIR,
  KV_ROCKSDB_LOG_LEVEL,
  KV_ROCKSDB_WRITE_BATCH_SIZE,
  KV_ROCKSDB_SHARED_RATE_LIMITER_BYTES_PER_SEC,
  KV_ROCKSDB_COMPACTION_STYLE,
  KV_ROCKSDB_COMPACTION_LEVEL_USE_DYNAMIC_SIZE,
  KV_ROCKSDB_COMPRESSION_PER_LEVEL,
  KV_ROCKSDB_COMPACTION_LEVEL_TARGET_FILE_SIZE_BASE,
  KV_ROCKSDB_COMPACTION_LEVEL_MAX_SIZE_LEVEL_BASE,
  KV_ROCKSDB_WRITEBUFFER_SIZE,
  KV_ROCKSDB_WRITEBUFFER_COUNT,
  KV_ROCKSDB_WRITEBUFFER_NUMBER_TO_MERGE,
  KV_ROCKSDB_BLOCK_BLOCKSIZE,
  KV_ROCKSDB_BLOCK_METADATA_BLOCKSIZE,
  KV_ROCKSDB_BLOCK_CACHE_SIZE,
  KV_ROCKSDB_USE_BLOOM_FILTER,
  KV_ROCKSDB_BLOOM_FILTER_BITS_PER_KEY,
  KV_ROCKSDB_BLOOM_FILTER_BLOCK_BASED_MODE,
  KV_ROCKSDB_BLOCK_CACHE_INDEX_AND_FILTER_BLOCKS,
  KV_ROCKSDB_BLOCK_CACHE_INDEX_AND_FILTER_BLOCKS_WITH_HIGH_PRIORITY,
  KV_ROCKSDB_BLOCK_PIN_L0_FILTER_AND_INDEX_BLOCKS_IN_CACHE,
  KV_ROCKSDB_BLOCK_PIN_TOP_LEVEL_INDEX_AND_FILTER,
] as const
