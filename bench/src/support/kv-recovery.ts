import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FsBlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import { Schema } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { DataTypes } from '@sluice/core/types'
import {
  fixedSchemaSource,
  type KvRecoveryReport,
  KvSnapshotStore,
  KvSnapshotter,
  KvTablet,
  type KvTabletOptions,
  openKvTabletWithRecovery,
  rocksDbKvOptions,
} from '@sluice/tablet/kv'
import { LogTablet } from '@sluice/tablet/log'
import { TestingKvBatches, testingLogOptions } from '@sluice/tablet/testing'
import { dirBytes } from './dir-bytes.js'

/**
 * One primary-key bucket prepared for the recovery benchmark: `keys` keys of `valueBytes` bytes
 * loaded through a KvTablet (the changelog in a real LogTablet), one snapshot uploaded to a
 * filesystem BlobStore, then `tailKeys` keys updated after it. Each recovery opens a new leader's
 * KvTablet in a fresh directory from the same log, checks a sample of keys and removes it again.
 */

export interface RecoveryBucket {
  readonly dir: string
  readonly keys: number
  readonly valueBytes: number
  readonly tailKeys: number
  readonly log: LogTablet
  readonly options: KvTabletOptions
  readonly snapshotStore: KvSnapshotStore
  readonly batches: TestingKvBatches
  readonly loadMs: number
  readonly snapshotMs: number
  readonly snapshotBytes: number
  readonly logBytes: number
  runs: number
}

const schema = Schema.newBuilder()
  .column('id', DataTypes.STRING())
  .column('payload', DataTypes.BYTES())
  .primaryKey('id')
  .build()

const keyOf = (i: number) => `key-${String(i).padStart(10, '0')}`
const BATCH_ROWS = 2000

function payload(i: number, version: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes, 0x61 + (i % 26))
  out.writeUInt32BE(i >>> 0, 0)
  out.writeUInt32BE(version, 4)
  return out
}

/** Upserts keys [0, to) at `version`, acknowledging (flush + high watermark) after every put. */
async function load(
  b: Pick<RecoveryBucket, 'log' | 'batches' | 'valueBytes'>,
  kv: KvTablet,
  to: number,
  version: number,
): Promise<void> {
  for (let start = 0; start < to; start += BATCH_ROWS) {
    const rows = []
    for (let i = start; i < Math.min(to, start + BATCH_ROWS); i++)
      rows.push([keyOf(i), payload(i, version, b.valueBytes)])
    await kv.putAsLeader(b.batches.batch(rows))
    b.log.updateHighWatermark(await kv.flush(b.log.logEndOffset))
  }
}

export async function prepareRecoveryBucket(
  keys: number,
  valueBytes = 100,
  tailKeys = Math.max(1, Math.floor(keys / 100)),
): Promise<RecoveryBucket> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-recovery-'))
  const blobStore = new FsBlobStore(join(dir, 'remote'))
  const metaStore = new MemoryMetaStore()
  const snapshotStore = new KvSnapshotStore({ blobStore, metaStore })
  const log = await LogTablet.open(join(dir, 'log'), { ...testingLogOptions(), segmentBytes: 256 << 20 })
  try {
    const options: KvTabletOptions = {
      log,
      schemas: fixedSchemaSource(1, schema),
      tableConfig: new Configuration({}),
      rocksDb: rocksDbKvOptions(new Configuration({})),
      recoverBatchBytes: 16 << 20,
      maxQueuedOperations: 1000,
      maxPendingBytes: 256 << 20,
    }
    const batches = new TestingKvBatches(schema)
    const b = { log, batches, valueBytes }
    const leader = await KvTablet.open(join(dir, 'kv-leader'), options)
    const loadStarted = performance.now()
    await load(b, leader, keys, 0)
    const loadMs = performance.now() - loadStarted
    const snapshotter = new KvSnapshotter({
      tableBucket: { tableId: 1, bucket: 0 },
      kv: leader,
      leaderEpoch: 1,
      blobStore,
      metaStore,
      checkpointDir: join(dir, 'checkpoints'),
      intervalMs: 600_000,
      numRetained: 2,
    })
    const snapshotStarted = performance.now()
    const run = await snapshotter.snapshotNow()
    if (run.snapshot === undefined) throw run.error ?? new Error('no snapshot taken')
    const snapshotMs = performance.now() - snapshotStarted
    await load(b, leader, tailKeys, 1)
    await leader.close()
    await rm(join(dir, 'kv-leader'), { recursive: true, force: true })
    return {
      dir,
      keys,
      valueBytes,
      tailKeys,
      log,
      options,
      snapshotStore,
      batches,
      loadMs,
      snapshotMs,
      snapshotBytes: run.snapshot.files.reduce((n, f) => n + f.size, 0),
      logBytes: await dirBytes(join(dir, 'log')),
      runs: 0,
    }
  } catch (e) {
    await log.close()
    await rm(dir, { recursive: true, force: true })
    throw e
  }
}

export async function closeRecoveryBucket(b: RecoveryBucket): Promise<void> {
  await b.log.close()
  await rm(b.dir, { recursive: true, force: true })
}

/**
 * A new leader recovers the bucket: from the newest snapshot plus the tail (`fromSnapshot`), or by
 * replaying the whole changelog. The recovered store is checked (every 97th key and the first tail
 * keys), then closed and deleted; the report's time covers the recovery only.
 */
export async function recoverBucket(b: RecoveryBucket, fromSnapshot: boolean): Promise<KvRecoveryReport> {
  const bucketDir = join(b.dir, `kv-recovered-${b.runs++}`)
  const { kv, report } = await openKvTabletWithRecovery({
    bucketDir,
    tableBucket: { tableId: 1, bucket: 0 },
    options: b.options,
    snapshotStore: fromSnapshot ? b.snapshotStore : null,
  })
  try {
    const expectedPath = fromSnapshot ? 'snapshot' : 'full-replay'
    if (report.path !== expectedPath)
      throw new Error(`recovery took path ${report.path}, not ${expectedPath}`)
    await verify(b, kv)
  } finally {
    await kv.close()
    await rm(bucketDir, { recursive: true, force: true })
  }
  return report
}

async function verify(b: RecoveryBucket, kv: KvTablet): Promise<void> {
  const sample: number[] = []
  for (let i = 0; i < b.keys; i += 97) sample.push(i)
  for (let i = 0; i < Math.min(b.keys, 50); i++) sample.push(i)
  for (let from = 0; from < sample.length; from += 1000) {
    const ids = sample.slice(from, from + 1000)
    const values = await kv.lookup(ids.map(i => b.batches.key([keyOf(i), null])))
    ids.forEach((i, j) => {
      const want = payload(i, i < b.tailKeys ? 1 : 0, b.valueBytes)
      const value = values[j]
      if (value === null || !value.subarray(value.length - want.length).equals(want))
        throw new Error(`recovered value of ${keyOf(i)} differs`)
    })
  }
}
