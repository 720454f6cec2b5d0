import type { BlobStore } from '@sluice/core/blobstore'
import { type Configuration, KV_SNAPSHOT_INTERVAL, KV_SNAPSHOT_NUM_RETAINED } from '@sluice/core/config'
import type { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { Clock, RetryPolicy } from '@sluice/core/util'
import type { KvMeta } from '../kv-meta.js'
import type { RocksDbKv } from '../rocksdb-kv.js'
import type { KvSnapshotLogger } from './kv-snapshot-stats.js'
import type { KvSnapshot } from './kv-snapshot-types.js'

/** The part of a KvTablet that snapshots use. */
export interface KvSnapshotSource {
  readonly name: string
  readonly flushedOffset: number
  readonly isClosed: boolean
  withFlushesPaused<T>(
    task: (store: { readonly meta: KvMeta; readonly rocks: RocksDbKv }) => Promise<T>,
  ): Promise<T>
}

/** Runs `task` after `delayMs`; the handle cancels it. Injected in tests. */
export interface SnapshotScheduler {
  schedule(task: () => void, delayMs: number): { cancel(): void }
}

export const TIMER_SCHEDULER: SnapshotScheduler = {
  schedule(task, delayMs) {
    const timer = setTimeout(task, delayMs)
    timer.unref()
    return { cancel: () => clearTimeout(timer) }
  },
}

export interface KvSnapshotterOptions {
  readonly tableBucket: TableBucket
  readonly kv: KvSnapshotSource
  /** The leader epoch this server leads the bucket with (fences commits). */
  readonly leaderEpoch: number
  readonly blobStore: BlobStore
  readonly metaStore: MetaStore
  /** Local directory for checkpoints; must be on the RocksDB directory's filesystem (hard links). */
  readonly checkpointDir: string
  /** `kv.snapshot.interval`. */
  readonly intervalMs: number
  /** `kv.snapshot.num-retained`. */
  readonly numRetained: number
  readonly clock?: Clock
  readonly scheduler?: SnapshotScheduler
  readonly logger?: KvSnapshotLogger
  readonly retry?: Partial<RetryPolicy>
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
  /** Files uploaded at once; default 4. */
  readonly transferConcurrency?: number
  /** Uploads no snapshot lists are deleted once older than this; default 1 hour. */
  readonly orphanSafetyWindowMs?: number
  /** Time between orphan sweeps (the first runs with the first snapshot); default 1 hour. */
  readonly orphanSweepIntervalMs?: number
  /** Keys one sweep looks at, at most; default 100,000. */
  readonly orphanSweepMaxKeys?: number
  /** Called once when a newer leader's commit is found; the snapshotter has stopped. */
  readonly onFenced?: (error: FlussError) => void
}

export type KvSnapshotRunStatus = 'committed' | 'skipped' | 'failed' | 'fenced'

export interface KvSnapshotRunResult {
  readonly status: KvSnapshotRunStatus
  readonly snapshot?: KvSnapshot
  readonly error?: FlussError
}

/** `kv.snapshot.interval` and `kv.snapshot.num-retained` from the server configuration. */
export function kvSnapshotSettings(
  conf: Configuration,
): Pick<KvSnapshotterOptions, 'intervalMs' | 'numRetained'> {
  return { intervalMs: conf.get(KV_SNAPSHOT_INTERVAL), numRetained: conf.get(KV_SNAPSHOT_NUM_RETAINED) }
}
