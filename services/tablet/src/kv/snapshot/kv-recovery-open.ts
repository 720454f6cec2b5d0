import { stat } from 'node:fs/promises'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { KvTablet } from '../kv-tablet.js'
import type { KvTabletOptions } from '../kv-tablet-types.js'
import { RocksDbKv } from '../rocksdb-kv.js'
import { type KvSnapshotLogger, SILENT_KV_SNAPSHOT_LOGGER } from './kv-snapshot-stats.js'
import type { KvSnapshotStore } from './kv-snapshot-store.js'
import type { KvSnapshot } from './kv-snapshot-types.js'

/** How a KvTablet was brought up: its own RocksDB, the newest snapshot, or the whole log. */
export type KvRecoveryPath = 'local' | 'snapshot' | 'full-replay'

export interface KvRecoveryReport {
  readonly path: KvRecoveryPath
  /** Wall time of the whole recovery (download and replay included). */
  readonly durationMs: number
  /** The changelog offset the replay started from, and the records it replayed. */
  readonly replayFromOffset: number
  readonly replayedRecords: number
  /** The snapshot restored (path 'snapshot'), else null. */
  readonly snapshotId: number | null
  /** Why the paths before the one taken were not usable. */
  readonly notes: readonly string[]
}

export interface OpenKvTabletWithRecoveryArgs {
  /** The bucket's RocksDB directory. */
  readonly bucketDir: string
  readonly tableBucket: TableBucket
  /**
   * The KvTablet's options. Wrap the log with `withRemoteChangelog` when remote segments exist, so
   * that a snapshot older than the local log start can still be brought up to date.
   */
  readonly options: KvTabletOptions
  /** Null when the server has no remote storage: only local and full replay are tried. */
  readonly snapshotStore: KvSnapshotStore | null
  readonly logger?: KvSnapshotLogger
  readonly nowMs?: () => number
}

/**
 * Opens a bucket's KvTablet on a new leader (or a restarted server), choosing the cheapest correct
 * way: (1) the local RocksDB when it is consistent with the log (replays only the records after its
 * flushed offset); (2) the newest committed snapshot, downloaded and brought up to date from its
 * log offset; (3) a full replay of the log. A snapshot that cannot be read fails the open
 * (retriable): falling back to a full replay of a log whose start was deleted would lose rows.
 */
export async function openKvTabletWithRecovery(
  args: OpenKvTabletWithRecoveryArgs,
): Promise<{ readonly kv: KvTablet; readonly report: KvRecoveryReport }> {
  const nowMs = args.nowMs ?? (() => performance.now())
  const startMs = nowMs()
  const notes: string[] = []
  const done = (path: KvRecoveryPath, kv: KvTablet, snapshot: KvSnapshot | null) => {
    const report: KvRecoveryReport = {
      path,
      durationMs: nowMs() - startMs,
      replayFromOffset: kv.recovery.fromOffset,
      replayedRecords: kv.recovery.records,
      snapshotId: snapshot?.snapshotId ?? null,
      notes,
    }
    ;(args.logger ?? SILENT_KV_SNAPSHOT_LOGGER).info('kv tablet recovered', { bucket: kv.name, ...report })
    return { kv, report }
  }
  const local = await openLocal(args, notes)
  if (local !== null) return done('local', local, null)
  const restored = await openFromSnapshot(args, notes)
  if (restored !== null) return done('snapshot', restored.kv, restored.snapshot)
  await RocksDbKv.destroy(args.bucketDir)
  const kv = await KvTablet.open(args.bucketDir, args.options)
  if (args.options.log.logStartOffset > 0) {
    ;(args.logger ?? SILENT_KV_SNAPSHOT_LOGGER).warn(
      'kv tablet rebuilt from a log that does not start at 0',
      {
        bucket: kv.name,
        logStartOffset: args.options.log.logStartOffset,
      },
    )
  }
  return done('full-replay', kv, null)
}

async function openLocal(args: OpenKvTabletWithRecoveryArgs, notes: string[]): Promise<KvTablet | null> {
  if (!(await exists(args.bucketDir))) {
    notes.push('no local RocksDB')
    return null
  }
  try {
    const kv = await KvTablet.openIfConsistent(args.bucketDir, args.options)
    if (kv === null) notes.push('local RocksDB is empty or does not match the log')
    return kv
  } catch (e) {
    notes.push(`local RocksDB cannot be opened: ${toFlussError(e).message}`)
    await RocksDbKv.destroy(args.bucketDir)
    return null
  }
}

async function openFromSnapshot(
  args: OpenKvTabletWithRecoveryArgs,
  notes: string[],
): Promise<{ kv: KvTablet; snapshot: KvSnapshot } | null> {
  const { snapshotStore, options, tableBucket, bucketDir } = args
  const snapshot = snapshotStore === null ? null : await snapshotStore.latest(tableBucket)
  if (snapshotStore === null || snapshot === null) {
    notes.push(snapshotStore === null ? 'no snapshot store' : 'no committed snapshot')
    return null
  }
  const { log } = options
  if (snapshot.logOffset < log.logStartOffset) {
    throw new FlussError(
      'KV_STORAGE_EXCEPTION',
      `cannot recover ${log.name}: its newest snapshot ${snapshot.snapshotId} covers the changelog below offset ${snapshot.logOffset}, but the log (local and remote) starts at ${log.logStartOffset}`,
    )
  }
  if (snapshot.logOffset > log.logEndOffset) {
    notes.push(
      `snapshot ${snapshot.snapshotId} at offset ${snapshot.logOffset} is beyond the log end ${log.logEndOffset}`,
    )
    return null
  }
  await snapshotStore.download(snapshot, bucketDir)
  const kv = await KvTablet.openIfConsistent(bucketDir, options)
  if (kv === null) {
    notes.push(`snapshot ${snapshot.snapshotId} at offset ${snapshot.logOffset} does not match the log`)
    return null
  }
  return { kv, snapshot }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}
