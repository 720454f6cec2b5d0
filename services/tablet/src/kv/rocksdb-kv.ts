import { rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import {
  type Configuration,
  KV_ROCKSDB_BLOCK_BLOCKSIZE,
  KV_ROCKSDB_BLOOM_FILTER_BITS_PER_KEY,
  KV_ROCKSDB_FILES_OPEN,
  KV_ROCKSDB_THREAD_NUM,
  KV_ROCKSDB_USE_BLOOM_FILTER,
  KV_ROCKSDB_WRITE_BATCH_SIZE,
  KV_ROCKSDB_WRITEBUFFER_COUNT,
  KV_ROCKSDB_WRITEBUFFER_SIZE,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { metricsEnabled } from '@sluice/core/metrics'
import { decodeKvMeta, encodeKvMeta, type KvMeta, META_KEY } from './kv-meta.js'
import type { KvRowCache, KvRowCacheSegment } from './kv-row-cache.js'
import type { NativeRocksDB, NativeRocksDBModule } from './rocksdb-native-types.js'

const native = createRequire(import.meta.url)('rocksdb-native') as NativeRocksDBModule

/** RocksDB settings of one bucket, from the server's `kv.rocksdb.*` options. */
export interface RocksDbKvOptions {
  readonly writeBufferSizeBytes: number
  readonly maxWriteBufferNumber: number
  readonly blockSizeBytes: number
  /** Bloom filter bits per key; null = no filter. */
  readonly bloomBitsPerKey: number | null
  /** -1 = no limit. */
  readonly maxOpenFiles: number
  readonly maxBackgroundJobs: number
  /** `kv.rocksdb.write-batch-size`: a flush writes batches of about this many bytes (0 = one batch). */
  readonly writeBatchBytes: number
  /** The server's row cache in front of RocksDB (`sluice.tablet-server.kv.row-cache-size`); none when absent. */
  readonly rowCache?: KvRowCache | null
  /** RocksDB tickers (block cache hits and misses, ...; no histograms or timers), when metrics are reported. */
  readonly statistics?: boolean
}

export function rocksDbKvOptions(conf: Configuration): RocksDbKvOptions {
  return {
    writeBufferSizeBytes: conf.get(KV_ROCKSDB_WRITEBUFFER_SIZE),
    maxWriteBufferNumber: conf.get(KV_ROCKSDB_WRITEBUFFER_COUNT),
    blockSizeBytes: conf.get(KV_ROCKSDB_BLOCK_BLOCKSIZE),
    bloomBitsPerKey: conf.get(KV_ROCKSDB_USE_BLOOM_FILTER)
      ? conf.get(KV_ROCKSDB_BLOOM_FILTER_BITS_PER_KEY)
      : null,
    maxOpenFiles: conf.get(KV_ROCKSDB_FILES_OPEN),
    maxBackgroundJobs: conf.get(KV_ROCKSDB_THREAD_NUM),
    writeBatchBytes: conf.get(KV_ROCKSDB_WRITE_BATCH_SIZE),
    statistics: metricsEnabled(conf),
  }
}

/** Small memtables for tests and tools. */
export const SMALL_ROCKSDB_OPTIONS: RocksDbKvOptions = {
  writeBufferSizeBytes: 4 * 1024 * 1024,
  maxWriteBufferNumber: 2,
  blockSizeBytes: 4096,
  bloomBitsPerKey: 10,
  maxOpenFiles: -1,
  maxBackgroundJobs: 2,
  writeBatchBytes: 2 * 1024 * 1024,
}

/** A put (value bytes) or delete (null) of one key. */
export interface KvWrite {
  readonly key: Buffer
  readonly value: { readonly bytes: Buffer } | null
}

function storageError(e: unknown, what: string): FlussError {
  if (e instanceof FlussError) return e
  const detail = e instanceof Error ? e.message : String(e)
  return new FlussError('KV_STORAGE_EXCEPTION', `${what}: ${detail}`, { cause: e })
}

/** The smallest key above every key that starts with `prefix`, or null when there is none. */
export function prefixUpperBound(prefix: Buffer): Buffer | null {
  const end = Buffer.from(prefix)
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] !== 0xff) {
      end[i]++
      return end.subarray(0, i + 1)
    }
  }
  return null
}

/** The first key of the user key space: user keys are never empty, the empty key holds `KvMeta`. */
const FIRST_USER_KEY = Buffer.from([0])

/**
 * One bucket's RocksDB (Fluss's `RocksDBKv`) through rocksdb-native. User keys are the encoded
 * primary keys (never empty); the empty key holds the flushed changelog offset (`KvMeta`) and is
 * written in the same atomic batch as the data it describes. Every read and write batch is
 * destroyed after use, otherwise close() would wait for it forever.
 */
export class RocksDbKv {
  #closed = false
  readonly #cache: KvRowCacheSegment | null

  private constructor(
    readonly dir: string,
    readonly db: NativeRocksDB,
    cache: KvRowCache | null,
  ) {
    this.#cache = cache === null ? null : cache.segment()
  }

  static async open(dir: string, options: RocksDbKvOptions): Promise<RocksDbKv> {
    const columnFamily = new native.ColumnFamily('default', {
      writeBufferSize: options.writeBufferSizeBytes,
      maxWriteBufferNumber: options.maxWriteBufferNumber,
      tableBlockSize: options.blockSizeBytes,
      filterPolicy:
        options.bloomBitsPerKey === null ? null : new native.BloomFilterPolicy(options.bloomBitsPerKey),
    })
    const db = new native(dir, {
      columnFamily,
      maxOpenFiles: options.maxOpenFiles,
      maxBackgroundJobs: options.maxBackgroundJobs,
      ...(options.statistics === true ? { enableStatistics: true } : {}),
    })
    try {
      await db.ready()
    } catch (e) {
      throw storageError(e, `opening RocksDB in ${dir}`)
    }
    return new RocksDbKv(dir, db, options.rowCache ?? null)
  }

  /** Deletes a closed instance's directory. */
  static async destroy(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true })
  }

  get isClosed(): boolean {
    return this.#closed
  }

  #checkOpen(): void {
    if (this.#closed) throw this.#closedError()
  }

  #closedError(): FlussError {
    return new FlussError('KV_STORAGE_EXCEPTION', `RocksDB in ${this.dir} is closed`)
  }

  /**
   * Values of `keys` (null when absent): from the row cache where it holds them, the others read
   * from RocksDB in one batch (and cached unless a write completed meanwhile).
   */
  multiGet(keys: readonly Buffer[]): Promise<(Buffer | null)[]> {
    if (this.#closed) return Promise.reject(this.#closedError())
    if (keys.length === 0) return Promise.resolve([])
    const cache = this.#cache
    if (cache === null) return this.#read(keys)
    if (cache.isEmpty) return this.#readAndCache(cache, keys)
    const values = new Array<Buffer | null>(keys.length)
    let misses: number[] | undefined
    let ids: string[] | undefined
    for (let i = 0; i < keys.length; i++) {
      const id = cache.id(keys[i])
      const value = cache.get(id)
      if (value !== undefined) {
        values[i] = value
        continue
      }
      values[i] = null
      misses ??= []
      ids ??= []
      misses.push(i)
      ids.push(id)
    }
    if (misses === undefined || ids === undefined) return Promise.resolve(values)
    const epoch = cache.writeEpoch
    const missed = misses
    const missedIds = ids
    const missedKeys = missed.length === keys.length ? keys : missed.map(i => keys[i])
    return this.#read(missedKeys).then(read => {
      cache.cacheRead(epoch, missedKeys, read, missedIds)
      for (let k = 0; k < missed.length; k++) values[missed[k]] = read[k]
      return values
    })
  }

  /** Reads every key from RocksDB, caching what it finds (the cache holds none of them). */
  #readAndCache(cache: KvRowCacheSegment, keys: readonly Buffer[]): Promise<(Buffer | null)[]> {
    const epoch = cache.writeEpoch
    cache.cache.noteMisses(keys.length)
    return this.#read(keys).then(values => {
      cache.cacheRead(epoch, keys, values)
      return values
    })
  }

  #read(keys: readonly Buffer[]): Promise<(Buffer | null)[]> {
    const batch = this.db.read({ autoDestroy: true, capacity: keys.length })
    const values = keys.map(key => batch.get(key))
    batch.tryFlush()
    return Promise.all(values).catch(e => {
      throw storageError(e, `reading ${keys.length} keys from RocksDB in ${this.dir}`)
    })
  }

  /** Applies puts/deletes and the new meta in one atomic write batch. */
  async write(writes: readonly KvWrite[], meta: KvMeta | null): Promise<void> {
    this.#checkOpen()
    const batch = this.db.write({ autoDestroy: true })
    for (const w of writes) {
      if (w.value === null) batch.tryDelete(w.key)
      else batch.tryPut(w.key, w.value.bytes)
    }
    if (meta !== null) batch.tryPut(META_KEY, encodeKvMeta(meta))
    try {
      await batch.flush()
    } catch (e) {
      // Whether any of it was applied is unknown: cached values of these keys may be stale.
      this.#cache?.forget(writes)
      throw storageError(e, `writing to RocksDB in ${this.dir}`)
    }
    this.#cache?.afterWrite(writes)
  }

  /** The stored meta, read from RocksDB itself (the row cache holds user keys only). */
  async readMeta(): Promise<KvMeta | null> {
    this.#checkOpen()
    const [bytes] = await this.#read([META_KEY])
    return bytes === null ? null : decodeKvMeta(bytes)
  }

  /** Values of every key starting with `prefix`, in key order, at most `limit`. */
  async prefixScan(prefix: Buffer, limit = Number.POSITIVE_INFINITY): Promise<Buffer[]> {
    if (prefix.length === 0) return this.scan(FIRST_USER_KEY, null, limit)
    return this.scan(prefix, prefixUpperBound(prefix), limit)
  }

  /** The first `limit` values in key order. */
  limitScan(limit: number): Promise<Buffer[]> {
    return this.scan(FIRST_USER_KEY, null, limit)
  }

  private async scan(gte: Buffer, lt: Buffer | null, limit: number): Promise<Buffer[]> {
    this.#checkOpen()
    const values: Buffer[] = []
    if (limit <= 0) return values
    const range = lt === null ? { gte, limit } : { gte, lt, limit }
    try {
      for await (const { value } of this.db.iterator(range)) values.push(value)
    } catch (e) {
      throw storageError(e, `scanning RocksDB in ${this.dir}`)
    }
    return values
  }

  /**
   * Writes the memtable into SST files (RocksDB's Flush, waited for), so that the SST files and the
   * MANIFEST alone hold everything written so far (checkpoints copy no WAL).
   */
  async flushMemTable(): Promise<void> {
    this.#checkOpen()
    try {
      await this.db.flush()
    } catch (e) {
      throw storageError(e, `flushing the memtable of RocksDB in ${this.dir}`)
    }
  }

  /** A RocksDB property as text (e.g. `rocksdb.sstables`: the live SST files by level). */
  async property(name: string): Promise<string> {
    this.#checkOpen()
    try {
      return await this.db.getProperty(name)
    } catch (e) {
      throw storageError(e, `reading property ${name} of RocksDB in ${this.dir}`)
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#cache?.close()
    try {
      await this.db.close()
    } catch (e) {
      throw storageError(e, `closing RocksDB in ${this.dir}`)
    }
  }
}
