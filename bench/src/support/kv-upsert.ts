import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration } from '@sluice/core/config'
import { Schema } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import {
  fixedSchemaSource,
  KvTablet,
  type KvWrite,
  RocksDbKv,
  SMALL_ROCKSDB_OPTIONS,
} from '@sluice/tablet/kv'
import { LogTablet } from '@sluice/tablet/log'
import { TestingKvBatches, testingLogOptions } from '@sluice/tablet/testing'

/**
 * The two sides of the upsert benchmark, split so that the harness can alternate them: the same
 * rows (BIGINT key, ~100-byte value) as KV batches through a KvTablet (merge against the pre-write
 * buffer and RocksDB, Arrow changelog appended to a real LogTablet, flush to RocksDB at each new
 * high watermark), and as raw RocksDB write batches of the same keys and value bytes. Each run
 * writes into a fresh directory, so every key is an insert on both sides.
 */

export interface UpsertWorkload {
  readonly rows: number
  readonly batchRows: number
  /** KV batches as a client sends them. */
  readonly kvBatches: readonly Buffer[]
  /** The same keys and value bytes as raw RocksDB writes, batch for batch. */
  readonly rawBatches: readonly KvWrite[][]
  readonly compression: 'NONE' | 'LZ4_FRAME' | 'ZSTD'
}

export interface UpsertRun {
  readonly seconds: number
}

const schema = Schema.newBuilder()
  .column('id', DataTypes.BIGINT())
  .column('payload', DataTypes.STRING())
  .primaryKey('id')
  .build()

/** Raw RocksDB options of both sides: the small test options with a 64 MiB memtable. */
const BENCH_ROCKSDB = { ...SMALL_ROCKSDB_OPTIONS, writeBufferSizeBytes: 64 << 20 }

/** A row whose stored value is about 100 bytes. */
function row(i: number): [bigint, string] {
  return [BigInt(i), `r0-${String(i).padStart(12, '0')}-`.padEnd(92, 'x')]
}

export function upsertWorkload(
  rows: number,
  batchRows: number,
  compression: UpsertWorkload['compression'] = 'ZSTD',
): UpsertWorkload {
  const kv = new TestingKvBatches(schema)
  const kvBatches: Buffer[] = []
  const rawBatches: KvWrite[][] = []
  for (let start = 0; start < rows; start += batchRows) {
    const slice = Array.from({ length: Math.min(batchRows, rows - start) }, (_, j) => row(start + j))
    kvBatches.push(kv.batch(slice))
    // The stored value is the schema id (2 bytes) and the CompactedRow; this is about as long.
    rawBatches.push(
      slice.map(r => ({ key: kv.key(r), value: { bytes: Buffer.from(`\u0001\u0000${r[1]}xxxxxxxx`) } })),
    )
  }
  return { rows, batchRows, kvBatches, rawBatches, compression }
}

/** Every batch through a new KvTablet over a new LogTablet; the clock stops when all is flushed. */
export async function runKvUpserts(w: UpsertWorkload): Promise<UpsertRun> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-upsert-'))
  try {
    const log = await LogTablet.open(join(dir, 'log'), { ...testingLogOptions(), segmentBytes: 256 << 20 })
    const tablet = await KvTablet.open(join(dir, 'kv'), {
      log,
      schemas: fixedSchemaSource(1, schema),
      tableConfig: new Configuration({ 'table.log.arrow.compression.type': w.compression }),
      rocksDb: BENCH_ROCKSDB,
      recoverBatchBytes: 16 << 20,
      maxQueuedOperations: 1000,
      maxPendingBytes: 256 << 20,
    })
    try {
      const started = performance.now()
      let flushed: Promise<unknown> = Promise.resolve()
      for (const batch of w.kvBatches) {
        await tablet.putAsLeader(batch)
        // One replica: the high watermark follows the log end; its flush overlaps the next put.
        flushed = tablet.flush(log.logEndOffset).then(f => log.maybeIncrementHighWatermark(f))
      }
      await flushed
      return { seconds: (performance.now() - started) / 1000 }
    } finally {
      await tablet.close()
      await log.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The same keys and value bytes written straight into a new RocksDB, one write batch per KV batch. */
export async function runRawRocksPuts(w: UpsertWorkload): Promise<UpsertRun> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-rocks-'))
  try {
    const rocks = await RocksDbKv.open(join(dir, 'raw'), BENCH_ROCKSDB)
    try {
      const started = performance.now()
      for (const batch of w.rawBatches) await rocks.write(batch, null)
      return { seconds: (performance.now() - started) / 1000 }
    } finally {
      await rocks.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
