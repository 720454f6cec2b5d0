import type { Labels, MetricRegistry } from '@sluice/core/metrics'
import type { KvTablet } from '../../kv/kv-tablet.js'
import type { Replica } from '../../replica/replica.js'

/**
 * RocksDB properties read per KV tablet (rocksdb-native's `getProperty`), with Fluss's table-level
 * aggregation (Max or Sum over the table's buckets led here). With metrics reported, KV tablets open
 * RocksDB with statistics (tickers only: no histograms or timers), whose counters come from the
 * `rocksdb.options-statistics` property: block cache hits and misses. Write stalls are shown by
 * `rocksdb.is-write-stopped` and `rocksdb.actual-delayed-write-rate`.
 */
const PROPERTIES = {
  memtable: 'rocksdb.cur-size-all-mem-tables',
  blockCache: 'rocksdb.block-cache-usage',
  blockCachePinned: 'rocksdb.block-cache-pinned-usage',
  tableReaders: 'rocksdb.estimate-table-readers-mem',
  level0Files: 'rocksdb.num-files-at-level0',
  flushPending: 'rocksdb.mem-table-flush-pending',
  compactionPending: 'rocksdb.compaction-pending',
  pendingCompactionBytes: 'rocksdb.estimate-pending-compaction-bytes',
  writeStopped: 'rocksdb.is-write-stopped',
  delayedWriteRate: 'rocksdb.actual-delayed-write-rate',
  liveSstBytes: 'rocksdb.live-sst-files-size',
} as const
/** Tickers of `rocksdb.options-statistics` (`<name> COUNT : <n>` lines). */
const TICKERS = {
  blockCacheHit: 'rocksdb.block.cache.hit',
  blockCacheMiss: 'rocksdb.block.cache.miss',
} as const
const STATISTICS_PROPERTY = 'rocksdb.options-statistics'
type Property = keyof typeof PROPERTIES | keyof typeof TICKERS
const ALL_KEYS = [...Object.keys(PROPERTIES), ...Object.keys(TICKERS)] as Property[]

/** The tickers of a statistics dump (0 for those absent: statistics off). */
export function parseTickers(text: string | undefined): Record<keyof typeof TICKERS, number> {
  const out = {} as Record<keyof typeof TICKERS, number>
  if (typeof text !== 'string') text = ''
  for (const [key, name] of Object.entries(TICKERS) as [keyof typeof TICKERS, string][]) {
    const m = text.match(new RegExp(`^${name.replace(/\./g, '\\.')} COUNT : (\\d+)$`, 'm'))
    out[key] = m === null ? 0 : Number(m[1])
  }
  return out
}

type Sample = Map<string, { labels: Labels; values: Record<Property, number[]> }>

/** Reads every property of every KV tablet once per scrape (shared by the gauges of one scrape). */
class RocksSampler {
  #at = 0
  #sample: Promise<Sample> | undefined
  constructor(private readonly replicas: () => readonly Replica[]) {}

  sample(): Promise<Sample> {
    const now = Date.now()
    if (this.#sample === undefined || now - this.#at > 1000) {
      this.#at = now
      this.#sample = this.#read()
    }
    return this.#sample
  }

  async #read(): Promise<Sample> {
    const out: Sample = new Map()
    const tablets: [Replica, KvTablet][] = []
    for (const r of this.replicas()) {
      const kv = r.kvTablet
      if (kv !== null && !kv.isClosed) tablets.push([r, kv])
    }
    const read = await Promise.all(tablets.map(([, kv]) => readProperties(kv)))
    tablets.forEach(([replica], i) => {
      const props = read[i]
      if (props === undefined) return
      const { databaseName: database, tableName: table } = replica.physicalTablePath.tablePath
      const key = `${database}.${table}`
      let entry = out.get(key)
      if (entry === undefined) {
        const values = Object.fromEntries(ALL_KEYS.map(p => [p, [] as number[]]))
        entry = { labels: { database, table }, values: values as Record<Property, number[]> }
        out.set(key, entry)
      }
      for (const p of ALL_KEYS) entry.values[p].push(props[p])
    })
    return out
  }
}

async function readProperties(kv: KvTablet): Promise<Record<Property, number> | undefined> {
  try {
    const names = Object.entries(PROPERTIES) as [keyof typeof PROPERTIES, string][]
    const [statistics, ...values] = await Promise.all([
      kv.property(STATISTICS_PROPERTY),
      ...names.map(([, n]) => kv.property(n)),
    ])
    return {
      ...(Object.fromEntries(names.map(([p], i) => [p, Number(values[i]) || 0])) as Record<
        keyof typeof PROPERTIES,
        number
      >),
      ...parseTickers(statistics),
    }
  } catch {
    return undefined // closed while read: left out of this scrape
  }
}

export function registerRocksDbGauges(registry: MetricRegistry, replicas: () => readonly Replica[]): void {
  const sampler = new RocksSampler(replicas)
  const table = (name: string, help: string, p: Property, agg: 'max' | 'sum') =>
    registry.gauge(`table_${name}`, help, async () => {
      const rows: [Labels, number][] = []
      for (const { labels, values } of (await sampler.sample()).values()) {
        const v = values[p]
        rows.push([labels, agg === 'max' ? Math.max(0, ...v) : v.reduce((a, b) => a + b, 0)])
      }
      return rows
    })
  table(
    'rocksdbMemTableMemoryUsageTotal',
    "Memtable bytes of the table's buckets led here",
    'memtable',
    'sum',
  )
  table('rocksdbBlockCacheMemoryUsageTotal', "Block cache bytes of the table's buckets", 'blockCache', 'sum')
  table(
    'rocksdbBlockCachePinnedUsageTotal',
    "Pinned block cache bytes of the table's buckets",
    'blockCachePinned',
    'sum',
  )
  table(
    'rocksdbTableReadersMemoryUsageTotal',
    "Index and filter bytes of the table's buckets",
    'tableReaders',
    'sum',
  )
  table('rocksdbNumFilesAtLevel0Max', 'Most L0 files of a bucket of the table', 'level0Files', 'max')
  table(
    'rocksdbFlushPendingMax',
    'Whether a bucket of the table has a memtable flush pending',
    'flushPending',
    'max',
  )
  table(
    'rocksdbCompactionPendingMax',
    'Whether a bucket of the table has a compaction pending',
    'compactionPending',
    'max',
  )
  table(
    'rocksdbPendingCompactionBytesTotal',
    'Estimated bytes compaction must rewrite',
    'pendingCompactionBytes',
    'sum',
  )
  table(
    'rocksdbWriteStoppedMax',
    'Whether writes of a bucket of the table are stopped (write stall)',
    'writeStopped',
    'max',
  )
  table(
    'rocksdbDelayedWriteRateMax',
    'Write rate (bytes/s) RocksDB slows a bucket to (0: not delayed)',
    'delayedWriteRate',
    'max',
  )
  table(
    'rocksdbBlockCacheHitTotal',
    "Block cache hits of the table's buckets led here, since their RocksDB opened",
    'blockCacheHit',
    'sum',
  )
  table(
    'rocksdbBlockCacheMissTotal',
    "Block cache misses of the table's buckets led here, since their RocksDB opened",
    'blockCacheMiss',
    'sum',
  )
  registry.gauge(
    'table_rocksdbBlockCacheHitRate',
    "Block cache hits / (hits + misses) of the table's buckets led here, since their RocksDB opened",
    async () => {
      const rows: [Labels, number][] = []
      for (const { labels, values } of (await sampler.sample()).values()) {
        const hits = values.blockCacheHit.reduce((a, b) => a + b, 0)
        const lookups = hits + values.blockCacheMiss.reduce((a, b) => a + b, 0)
        if (lookups > 0) rows.push([labels, hits / lookups])
      }
      return rows
    },
  )
  table('logicalStorage_kvSize', "Bytes of the live SST files of the table's buckets", 'liveSstBytes', 'sum')
  registry.gauge(
    'rocksdbMemoryUsageTotal',
    'Memtable, block cache and table-reader bytes of every RocksDB here',
    async () => {
      let total = 0
      for (const { values } of (await sampler.sample()).values()) {
        for (const p of ['memtable', 'blockCache', 'tableReaders'] as const)
          total += values[p].reduce((a, b) => a + b, 0)
      }
      return total
    },
  )
}
