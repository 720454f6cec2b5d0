import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration, SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE } from '@sluice/core/config'
import { Schema } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { LogTablet } from '../log/log-tablet.js'
import { TestingKvBatches, testingLogOptions } from '../testing/kv.js'
import { KvRowCache } from './kv-row-cache.js'
import { fixedSchemaSource } from './kv-schemas.js'
import { KvTablet } from './kv-tablet.js'
import { type KvWrite, RocksDbKv, SMALL_ROCKSDB_OPTIONS } from './rocksdb-kv.js'

export interface BenchUpsertOptions {
  /** Rows upserted (and put raw), all distinct keys. */
  readonly rows: number
  /** Rows per KV batch and per raw RocksDB write batch. Default 1000. */
  readonly batchRows?: number
  /** Upserts per key: 1 = inserts only, 2 = inserts then as many updates. Default 1. */
  readonly rounds?: number
  /** `table.log.arrow.compression.type` of the changelog. Default ZSTD (the table default). */
  readonly compression?: 'NONE' | 'LZ4_FRAME' | 'ZSTD'
}

export interface BenchUpsertResult {
  /**
   * Rows per second through KvTablet.putAsLeader + flush to the new log end after each put (one
   * replica; each flush overlaps the next put), everything flushed when the clock stops.
   */
  readonly upsertsPerSec: number
  /** Puts per second of the same key/value bytes written straight into RocksDB in write batches. */
  readonly rawRocksPutsPerSec: number
  readonly ratio: number
}

const schema = Schema.newBuilder()
  .column('id', DataTypes.BIGINT())
  .column('payload', DataTypes.STRING())
  .primaryKey('id')
  .build()

/** A row whose stored value is about 100 bytes. */
function row(i: number, round: number): [bigint, string] {
  return [BigInt(i), `r${round}-${String(i).padStart(12, '0')}-`.padEnd(92, 'x')]
}

/**
 * Measures upserts through the KvTablet (merge against pre-write buffer and RocksDB, Arrow changelog
 * appended to a real LogTablet, flush to RocksDB at each new high watermark) against raw RocksDB
 * write batches of the same rows, in the same process. The two alternate every few batches so that
 * both see the same machine load. Not a test: run it from a bench script.
 */
export async function benchUpsert(options: BenchUpsertOptions): Promise<BenchUpsertResult> {
  const batchRows = options.batchRows ?? 1000
  const rounds = options.rounds ?? 1
  const kv = new TestingKvBatches(schema)
  const puts: Buffer[] = []
  const raw: KvWrite[][] = []
  for (let round = 0; round < rounds; round++) {
    for (let start = 0; start < options.rows; start += batchRows) {
      const rows = Array.from({ length: Math.min(batchRows, options.rows - start) }, (_, j) =>
        row(start + j, round),
      )
      puts.push(kv.batch(rows))
      raw.push(
        rows.map(r => ({ key: kv.key(r), value: { bytes: Buffer.from(`\u0001\u0000${r[1]}xxxxxxxx`) } })),
      )
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-kv-'))
  const bucket = await openBucket(join(dir, 'bucket'), options.compression ?? 'ZSTD')
  const rocks = await RocksDbKv.open(join(dir, 'raw'), BENCH_ROCKSDB)
  let upsertNs = 0n
  let rawNs = 0n
  try {
    for (let from = 0; from < puts.length; from += ALTERNATE_EVERY) {
      const to = Math.min(from + ALTERNATE_EVERY, puts.length)
      let started = process.hrtime.bigint()
      let flushed: Promise<unknown> = Promise.resolve()
      for (let i = from; i < to; i++) {
        await bucket.tablet.putAsLeader(puts[i])
        // The high watermark follows the log end (one replica); its flush overlaps the next put.
        flushed = bucket.tablet
          .flush(bucket.log.logEndOffset)
          .then(f => bucket.log.maybeIncrementHighWatermark(f))
      }
      await flushed
      upsertNs += process.hrtime.bigint() - started
      started = process.hrtime.bigint()
      for (let i = from; i < to; i++) await rocks.write(raw[i], null)
      rawNs += process.hrtime.bigint() - started
    }
  } finally {
    await bucket.tablet.close()
    await bucket.log.close()
    await rocks.close()
    await rm(dir, { recursive: true, force: true })
  }
  const total = options.rows * rounds
  const upsertsPerSec = total / (Number(upsertNs) / 1e9)
  const rawRocksPutsPerSec = total / (Number(rawNs) / 1e9)
  return { upsertsPerSec, rawRocksPutsPerSec, ratio: upsertsPerSec / rawRocksPutsPerSec }
}

/** Batches of each kind run back to back before switching. */
const ALTERNATE_EVERY = 5
const BENCH_ROCKSDB = { ...SMALL_ROCKSDB_OPTIONS, writeBufferSizeBytes: 64 << 20 }
const SERVER_ROW_CACHE_BYTES = SLUICE_TABLET_SERVER_KV_ROW_CACHE_SIZE.defaultValue as number

async function openBucket(dir: string, compression: string): Promise<{ log: LogTablet; tablet: KvTablet }> {
  const log = await LogTablet.open(join(dir, 'log'), { ...testingLogOptions(), segmentBytes: 256 << 20 })
  const tablet = await KvTablet.open(join(dir, 'kv'), {
    log,
    schemas: fixedSchemaSource(1, schema),
    tableConfig: new Configuration({ 'table.log.arrow.compression.type': compression }),
    physicalPrimaryKeys: ['id'],
    // As on a tablet server: the row cache in front of RocksDB (the raw baseline has none).
    rocksDb: { ...BENCH_ROCKSDB, rowCache: new KvRowCache(SERVER_ROW_CACHE_BYTES) },
    recoverBatchBytes: 16 << 20,
    maxQueuedOperations: 1000,
    maxPendingBytes: 256 << 20,
  })
  return { log, tablet }
}
