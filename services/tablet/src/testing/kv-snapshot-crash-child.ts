/**
 * A tablet-server stand-in for kill -9 tests of KV snapshots (bundled and started by
 * kv-snapshot-crash.test.ts): writes and acknowledges rows in rounds and snapshots every few rounds
 * without waiting, printing `ACK <round> <highWatermark>`, `SNAPSHOT <status> <id> <offset>`,
 * `UPLOAD <key>` and `CHECKPOINT`, until the test kills it.
 *
 * Usage: node child.mjs <dir> <leaderEpoch>
 */
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { type BlobStore, FsBlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import type { KvTabletOptions } from '../kv/kv-tablet-types.js'
import type { RocksDbKv } from '../kv/rocksdb-kv.js'
import { SMALL_ROCKSDB_OPTIONS } from '../kv/rocksdb-kv.js'
import { openKvTabletWithRecovery } from '../kv/snapshot/kv-recovery-open.js'
import { KvSnapshotStore } from '../kv/snapshot/kv-snapshot-store.js'
import { KvSnapshotter } from '../kv/snapshot/kv-snapshotter.js'
import type { KvSnapshotSource } from '../kv/snapshot/kv-snapshotter-options.js'
import { fixedSchemaSource } from '../kv/table-schemas.js'
import { LogTablet } from '../log/log-tablet.js'
import { FileMetaStore } from './file-metastore.js'
import { TestingKvBatches, testingLogOptions } from './kv.js'
import { SNAPSHOT_TEST_BUCKET, SNAPSHOT_TEST_SCHEMA } from './kv-snapshot.js'

const ROUNDS_MAX = 3000
const KEYS = 200
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
const print = (line: string) => process.stdout.write(`${line}\n`)

async function main(): Promise<void> {
  const [dir, epoch] = process.argv.slice(2)
  const fs = new FsBlobStore(join(dir, 'remote'))
  const blobStore: BlobStore = {
    capabilities: fs.capabilities,
    put: (key, body, o) => fs.put(key, body, o),
    get: (key, o) => fs.get(key, o),
    getStream: (key, o) => fs.getStream(key, o),
    head: key => fs.head(key),
    list: (prefix, o) => fs.list(prefix, o),
    delete: keys => fs.delete(keys),
    upload: async (key: string, source: string | Readable) => {
      print(`UPLOAD ${key}`)
      await sleep(20)
      return fs.upload(key, source)
    },
    close: () => fs.close(),
  }
  const metaStore = await FileMetaStore.open(join(dir, 'meta.json'))
  const log = await LogTablet.open(join(dir, 'log'), testingLogOptions())
  const options: KvTabletOptions = {
    log,
    schemas: fixedSchemaSource(1, SNAPSHOT_TEST_SCHEMA),
    tableConfig: new Configuration({}),
    rocksDb: SMALL_ROCKSDB_OPTIONS,
    recoverBatchBytes: 1 << 20,
    maxQueuedOperations: 100,
    maxPendingBytes: 64 << 20,
  }
  const { kv } = await openKvTabletWithRecovery({
    bucketDir: join(dir, 'kv'),
    tableBucket: SNAPSHOT_TEST_BUCKET,
    options,
    snapshotStore: new KvSnapshotStore({ blobStore, metaStore }),
  })
  const source: KvSnapshotSource = {
    name: kv.name,
    get flushedOffset() {
      return kv.flushedOffset
    },
    get isClosed() {
      return kv.isClosed
    },
    withFlushesPaused: task =>
      kv.withFlushesPaused(({ meta, rocks }) => task({ meta, rocks: slowCheckpoints(rocks) })),
  }
  const snapshotter = new KvSnapshotter({
    tableBucket: SNAPSHOT_TEST_BUCKET,
    kv: source,
    leaderEpoch: Number(epoch),
    blobStore,
    metaStore,
    checkpointDir: join(dir, 'checkpoints'),
    intervalMs: 600_000,
    numRetained: 2,
    transferConcurrency: 1,
  })
  const batches = new TestingKvBatches(SNAPSHOT_TEST_SCHEMA)
  let snapshotting: Promise<unknown> = Promise.resolve()
  for (let round = 1; round <= ROUNDS_MAX; round++) {
    const from = (round * 13) % KEYS
    const rows = Array.from({ length: 10 }, (_, i) => [
      `k${(from + i) % KEYS}`,
      BigInt(round),
      'x'.repeat(100),
    ])
    await kv.putAsLeader(batches.batch(rows))
    log.updateHighWatermark(await kv.flush(log.logEndOffset))
    print(`ACK ${round} ${log.highWatermark}`)
    if (round % 4 === 0) {
      await snapshotting
      snapshotting = snapshotter.snapshotNow().then(r => {
        print(`SNAPSHOT ${r.status} ${r.snapshot?.snapshotId ?? '-'} ${r.snapshot?.logOffset ?? '-'}`)
      })
    }
  }
  process.exit(0)
}

/** The store as the checkpoint sees it, with a pause while it reads the live files (a window to kill in). */
function slowCheckpoints(rocks: RocksDbKv): RocksDbKv {
  return Object.assign(Object.create(rocks) as RocksDbKv, {
    dir: rocks.dir,
    flushMemTable: () => rocks.flushMemTable(),
    property: async (name: string) => {
      print('CHECKPOINT')
      await sleep(20)
      return rocks.property(name)
    },
  })
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`)
  process.exit(1)
})
