import { join } from 'node:path'
import { MemoryBlobStore } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import { Schema } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import type { KvTablet } from '../kv/kv-tablet.js'
import { RocksDbKv, SMALL_ROCKSDB_OPTIONS } from '../kv/rocksdb-kv.js'
import { KvSnapshotRegistry } from '../kv/snapshot/kv-snapshot-registry.js'
import { KvSnapshotStore } from '../kv/snapshot/kv-snapshot-store.js'
import type { KvSnapshot } from '../kv/snapshot/kv-snapshot-types.js'
import { KvSnapshotter } from '../kv/snapshot/kv-snapshotter.js'
import type { KvSnapshotterOptions } from '../kv/snapshot/kv-snapshotter-options.js'
import { FaultInjectingBlobStore, FaultInjectingMetaStore } from './faults.js'
import { TestingKvBatches, TestingKvBucket } from './kv.js'

export const SNAPSHOT_TEST_SCHEMA = Schema.newBuilder()
  .column('k', DataTypes.STRING())
  .column('v', DataTypes.BIGINT())
  .column('pad', DataTypes.STRING())
  .primaryKey('k')
  .build()

export const SNAPSHOT_TEST_BUCKET: TableBucket = { tableId: 7, bucket: 0 }
const PAD = 'x'.repeat(100)

/** A KV bucket with fault-injecting in-memory stores, for snapshot tests. */
export class SnapshotTestBed {
  readonly batches = new TestingKvBatches(SNAPSHOT_TEST_SCHEMA)
  readonly blobStore = new FaultInjectingBlobStore(new MemoryBlobStore())
  readonly metaStore = new FaultInjectingMetaStore(new MemoryMetaStore())
  readonly registry = new KvSnapshotRegistry(this.metaStore.inner)
  readonly store = new KvSnapshotStore({
    blobStore: this.blobStore,
    metaStore: this.metaStore,
    sleep: async () => {},
  })
  /** Acknowledged value of every key (null: deleted). */
  readonly acknowledged = new Map<string, bigint | null>()
  #pending = new Map<string, bigint | null>()
  nowMs = 1_700_000_000_000

  private constructor(readonly bucket: TestingKvBucket) {}

  static async open(): Promise<SnapshotTestBed> {
    return new SnapshotTestBed(await TestingKvBucket.open(SNAPSHOT_TEST_SCHEMA))
  }

  get kv(): KvTablet {
    return this.bucket.kv
  }

  snapshotter(overrides: Partial<KvSnapshotterOptions> = {}): KvSnapshotter {
    return new KvSnapshotter({
      tableBucket: SNAPSHOT_TEST_BUCKET,
      kv: this.bucket.kv,
      leaderEpoch: 1,
      blobStore: this.blobStore,
      metaStore: this.metaStore,
      checkpointDir: join(this.bucket.dir, 'checkpoints'),
      intervalMs: 600_000,
      numRetained: 2,
      clock: { nowMs: () => this.nowMs },
      sleep: async () => {},
      random: () => 0.5,
      ...overrides,
    })
  }

  /** Upserts keys `k<from>..k<to-1>` with value `v` (not acknowledged yet). */
  async upsert(from: number, to: number, v: bigint): Promise<void> {
    const rows = []
    for (let i = from; i < to; i++) {
      rows.push([`k${i}`, v, PAD])
      this.#pending.set(`k${i}`, v)
    }
    await this.kv.putAsLeader(this.batches.batch(rows))
  }

  async delete(keys: readonly number[]): Promise<void> {
    await this.kv.putAsLeader(this.batches.batch(keys.map(i => ({ delete: [`k${i}`, null, null] }))))
    for (const i of keys) this.#pending.set(`k${i}`, null)
  }

  /** Moves the high watermark to the log end: everything written so far is acknowledged. */
  async acknowledge(): Promise<void> {
    await this.bucket.acknowledge()
    for (const [k, v] of this.#pending) this.acknowledged.set(k, v)
    this.#pending.clear()
  }

  /** The acknowledged rows as `key=value`, sorted. */
  expectedRows(): string[] {
    return [...this.acknowledged]
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k}=${v}`)
      .sort()
  }

  /** Every object key in the BlobStore. */
  async blobKeys(): Promise<string[]> {
    const keys: string[] = []
    let cursor: string | undefined
    do {
      const page = await this.blobStore.inner.list('', cursor === undefined ? {} : { cursor })
      keys.push(...page.items.map(i => i.key))
      cursor = page.cursor
    } while (cursor !== undefined)
    return keys.sort()
  }

  /** The committed snapshots, oldest first. */
  async committed(): Promise<KvSnapshot[]> {
    const head = await this.registry.loadHead(SNAPSHOT_TEST_BUCKET)
    return head === null ? [] : this.registry.retained(SNAPSHOT_TEST_BUCKET, head.head)
  }

  async close(): Promise<void> {
    await this.bucket.close()
  }
}

/** Every row of a RocksDB directory as `key=value`, sorted, plus its recorded flushed offset. */
export async function rowsOfRocksDb(dir: string): Promise<{ rows: string[]; flushedOffset: number | null }> {
  const rocks = await RocksDbKv.open(dir, SMALL_ROCKSDB_OPTIONS)
  try {
    const meta = await rocks.readMeta()
    const values = await rocks.limitScan(Number.POSITIVE_INFINITY)
    return { rows: values.map(rowText).sort(), flushedOffset: meta?.flushedOffset ?? null }
  } finally {
    await rocks.close()
  }
}

/** `key=value` of a stored value. */
export function rowText(value: Buffer): string {
  const row = decodeCompactedRow(decodeValue(value).row, SNAPSHOT_TEST_SCHEMA.rowType)
  return `${row[0]}=${row[1]}`
}

/** Every row the KvTablet serves, as `key=value`, sorted. */
export async function rowsOfKv(kv: KvTablet): Promise<string[]> {
  return (await kv.limitScan(Number.POSITIVE_INFINITY)).map(rowText).sort()
}
