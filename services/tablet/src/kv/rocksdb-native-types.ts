/**
 * The part of rocksdb-native's API this package uses (the module ships no type declarations).
 * Keys and values are always Buffers.
 */

export interface NativeReadBatch {
  get(key: Buffer): Promise<Buffer | null>
  tryFlush(): void
  destroy(): void
}

export interface NativeWriteBatch {
  tryPut(key: Buffer, value: Buffer): void
  tryDelete(key: Buffer): void
  flush(): Promise<void>
  destroy(): void
}

export interface NativeIteratorRange {
  readonly gte?: Buffer
  readonly lt?: Buffer
  readonly limit?: number
}

export interface NativeRocksDB {
  ready(): Promise<void>
  read(options: { autoDestroy: boolean; capacity?: number }): NativeReadBatch
  write(options: { autoDestroy: boolean; capacity?: number }): NativeWriteBatch
  iterator(range: NativeIteratorRange): AsyncIterable<{ key: Buffer; value: Buffer }>
  /** Writes the memtable to an SST file and waits for it. */
  flush(): Promise<void>
  /** A RocksDB property (`rocksdb.sstables`, `rocksdb.estimate-num-keys`, ...) as text. */
  getProperty(name: string): Promise<string>
  close(): Promise<void>
}

export interface NativeColumnFamilyOptions {
  readonly writeBufferSize?: number
  readonly maxWriteBufferNumber?: number
  readonly tableBlockSize?: number
  readonly filterPolicy?: unknown
}

export interface NativeRocksDBOptions {
  readonly columnFamily?: unknown
  readonly maxOpenFiles?: number
  readonly maxBackgroundJobs?: number
  /** Tickers (`rocksdb.options-statistics`); histograms and timers stay off (the binding's default level). */
  readonly enableStatistics?: boolean
}

export interface NativeRocksDBModule {
  new (dir: string, options?: NativeRocksDBOptions): NativeRocksDB
  ColumnFamily: new (name: string, options?: NativeColumnFamilyOptions) => unknown
  BloomFilterPolicy: new (bitsPerKey: number) => unknown
}
