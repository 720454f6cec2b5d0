import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FsBlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { Schema } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { DataTypes } from '@sluice/core/types'
import { LogTablet } from '../../log/log-tablet.js'
import { TestingKvBatches, testingLogOptions } from '../../testing/kv.js'
import { fixedSchemaSource } from '../kv-schemas.js'
import { KvTablet } from '../kv-tablet.js'
import type { KvTabletOptions } from '../kv-tablet-types.js'
import { rocksDbKvOptions } from '../rocksdb-kv.js'
import { type KvRecoveryReport, openKvTabletWithRecovery } from './kv-recovery-open.js'
import { KvSnapshotStore } from './kv-snapshot-store.js'
import { KvSnapshotter } from './kv-snapshotter.js'

export interface BenchRecoveryOptions {
  /** Distinct keys in the bucket; default 1,000,000. */
  readonly keys?: number
  /** Bytes of each value; default 100. */
  readonly valueBytes?: number
  /** Keys updated after the snapshot (the tail to replay); default 1% of `keys`. */
  readonly tailKeys?: number
  /** Rows per put; default 2000. */
  readonly batchRows?: number
}

export interface BenchRecoveryResult {
  readonly keys: number
  readonly valueBytes: number
  readonly tailKeys: number
  readonly logEndOffset: number
  readonly snapshotBytes: number
  readonly snapshotFiles: number
  /** Loading the bucket through KvTablet puts (not part of the comparison). */
  readonly loadMs: number
  /** Taking and uploading the snapshot, and how long it paused RocksDB writes. */
  readonly snapshotMs: number
  readonly snapshotPauseMs: number
  /** A new leader: snapshot download + open + tail replay. */
  readonly snapshotRecovery: KvRecoveryReport
  /** A new leader without snapshots: the whole changelog replayed. */
  readonly fullReplay: KvRecoveryReport
  /** snapshotRecovery / fullReplay wall time (target <= 0.2). */
  readonly ratio: number
}

const schema = Schema.newBuilder()
  .column('id', DataTypes.STRING())
  .column('payload', DataTypes.BYTES())
  .primaryKey('id')
  .build()

const keyOf = (i: number) => `key-${String(i).padStart(10, '0')}`

function payload(i: number, version: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes, 0x61 + (i % 26))
  out.writeUInt32BE(i >>> 0, 0)
  out.writeUInt32BE(version, 4)
  return out
}

/**
 * Recovery time of one primary-key bucket holding `keys` keys of `valueBytes` bytes: restoring the
 * newest snapshot and replaying a small changelog tail, against replaying the whole changelog, in
 * the same process on the same data. Both recovered stores are checked against the written values
 * (a sample of keys, tail updates included). Snapshots go to a filesystem BlobStore in a temporary
 * directory. Not a test: run it from a bench script.
 */
export async function benchRecovery(options: BenchRecoveryOptions = {}): Promise<BenchRecoveryResult> {
  const keys = options.keys ?? 1_000_000
  const valueBytes = options.valueBytes ?? 100
  const tailKeys = options.tailKeys ?? Math.max(1, Math.floor(keys / 100))
  const batchRows = options.batchRows ?? 2000
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-recovery-'))
  const blobStore = new FsBlobStore(join(dir, 'remote'))
  const snapshotStore = new KvSnapshotStore({ blobStore, metaStore: new MemoryMetaStore() })
  const log = await LogTablet.open(join(dir, 'log'), { ...testingLogOptions(), segmentBytes: 256 << 20 })
  try {
    const kvOptions: KvTabletOptions = {
      log,
      schemas: fixedSchemaSource(1, schema),
      tableConfig: new Configuration({}),
      physicalPrimaryKeys: ['id'],
      rocksDb: rocksDbKvOptions(new Configuration({})),
      recoverBatchBytes: 16 << 20,
      maxQueuedOperations: 1000,
      maxPendingBytes: 256 << 20,
    }
    const batches = new TestingKvBatches(schema)
    const leader = await KvTablet.open(join(dir, 'kv-leader'), kvOptions)
    const loadStarted = performance.now()
    await load(leader, log, batches, 0, keys, 0, valueBytes, batchRows)
    const loadMs = performance.now() - loadStarted
    const snapshotter = new KvSnapshotter({
      tableBucket: { tableId: 1, bucket: 0 },
      kv: leader,
      leaderEpoch: 1,
      blobStore,
      metaStore: snapshotStore.options.metaStore,
      checkpointDir: join(dir, 'checkpoints'),
      intervalMs: 600_000,
      numRetained: 2,
    })
    const snapshotStarted = performance.now()
    const run = await snapshotter.snapshotNow()
    if (run.snapshot === undefined)
      throw run.error ?? new FlussError('KV_STORAGE_EXCEPTION', 'no snapshot taken')
    const snapshotMs = performance.now() - snapshotStarted
    await load(leader, log, batches, 0, tailKeys, 1, valueBytes, batchRows)
    await leader.close()
    const expected = (i: number) => payload(i, i < tailKeys ? 1 : 0, valueBytes)
    const recover = async (name: string, store: KvSnapshotStore | null) => {
      const { kv, report } = await openKvTabletWithRecovery({
        bucketDir: join(dir, name),
        tableBucket: { tableId: 1, bucket: 0 },
        options: kvOptions,
        snapshotStore: store,
      })
      try {
        await verify(kv, batches, keys, expected)
      } finally {
        await kv.close()
      }
      return report
    }
    const snapshotRecovery = await recover('kv-from-snapshot', snapshotStore)
    const fullReplay = await recover('kv-full-replay', null)
    if (snapshotRecovery.path !== 'snapshot' || fullReplay.path !== 'full-replay') {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `unexpected recovery paths ${snapshotRecovery.path}, ${fullReplay.path}`,
      )
    }
    return {
      keys,
      valueBytes,
      tailKeys,
      logEndOffset: log.logEndOffset,
      snapshotBytes: run.snapshot.files.reduce((n, f) => n + f.size, 0),
      snapshotFiles: run.snapshot.files.length,
      loadMs,
      snapshotMs,
      snapshotPauseMs: snapshotter.stats().lastPauseMs ?? 0,
      snapshotRecovery,
      fullReplay,
      ratio: snapshotRecovery.durationMs / fullReplay.durationMs,
    }
  } finally {
    await log.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Upserts keys [from, to) at `version`, acknowledging (flush + high watermark) after every put. */
async function load(
  kv: KvTablet,
  log: LogTablet,
  batches: TestingKvBatches,
  from: number,
  to: number,
  version: number,
  valueBytes: number,
  batchRows: number,
): Promise<void> {
  for (let start = from; start < to; start += batchRows) {
    const rows = []
    for (let i = start; i < Math.min(to, start + batchRows); i++)
      rows.push([keyOf(i), payload(i, version, valueBytes)])
    await kv.putAsLeader(batches.batch(rows))
    log.updateHighWatermark(await kv.flush(log.logEndOffset))
  }
}

/** Looks up every 97th key and the first tail keys; throws on any difference. */
async function verify(
  kv: KvTablet,
  batches: TestingKvBatches,
  keys: number,
  expected: (i: number) => Buffer,
): Promise<void> {
  const sample: number[] = []
  for (let i = 0; i < keys; i += 97) sample.push(i)
  for (let i = 0; i < Math.min(keys, 50); i++) sample.push(i)
  for (let from = 0; from < sample.length; from += 1000) {
    const ids = sample.slice(from, from + 1000)
    const values = await kv.lookup(ids.map(i => batches.key([keyOf(i), null])))
    ids.forEach((i, j) => {
      const value = values[j]
      if (value === null || !value.subarray(value.length - expected(i).length).equals(expected(i))) {
        throw new FlussError('KV_STORAGE_EXCEPTION', `recovered value of ${keyOf(i)} differs`)
      }
    })
  }
}
