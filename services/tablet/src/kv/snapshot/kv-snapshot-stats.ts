/** Counters and last outcomes of one bucket's KV snapshots, for metrics, logs and tests. */
export interface KvSnapshotStats {
  /** Snapshots committed, runs skipped (nothing new), runs failed (retried at the next interval). */
  committed: number
  skipped: number
  failures: number
  /** Calls retried after a retriable BlobStore or MetaStore failure. */
  retries: number
  /** True once a newer leader's commit stopped this one. */
  fenced: boolean
  filesUploaded: number
  bytesUploaded: number
  /** Bytes of SST files referred to from earlier snapshots instead of uploaded again. */
  bytesReused: number
  /** Objects deleted by retention, discarded uploads and the orphan sweep; failed deletes. */
  objectsDeleted: number
  orphansDeleted: number
  deleteErrors: number
  lastSnapshotId: number | null
  lastLogOffset: number | null
  lastSnapshotAtMs: number | null
  /** How long the last checkpoint held RocksDB writes (memtable flush, links, copies). */
  lastPauseMs: number | null
  /** From the start of the last committed run to its commit. */
  lastDurationMs: number | null
  lastError: string | null
}

export function emptyKvSnapshotStats(): KvSnapshotStats {
  return {
    committed: 0,
    skipped: 0,
    failures: 0,
    retries: 0,
    fenced: false,
    filesUploaded: 0,
    bytesUploaded: 0,
    bytesReused: 0,
    objectsDeleted: 0,
    orphansDeleted: 0,
    deleteErrors: 0,
    lastSnapshotId: null,
    lastLogOffset: null,
    lastSnapshotAtMs: null,
    lastPauseMs: null,
    lastDurationMs: null,
    lastError: null,
  }
}

export interface KvSnapshotLogger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

export const SILENT_KV_SNAPSHOT_LOGGER: KvSnapshotLogger = { info() {}, warn() {} }
