import { FlussError } from '@sluice/core/errors'
import { ancestors, withoutSnapshots } from '@sluice/lake/iceberg'
import type { IcebergTable } from '../table.js'
import type { LakeTableState } from '../table-state.js'
import { ReachableFiles } from './reachable.js'

/**
 * Snapshot expiry: removes snapshots older than `olderThanMs` from the metadata, keeping the
 * current snapshot and at least `retainLast` snapshots of the main branch, every ref's snapshot,
 * and the newest Fluss tiering snapshot (its `fluss-offsets` say where tiering resumes). After the
 * metadata commit, files reachable only from expired snapshots are deleted: manifest lists,
 * manifests, data and delete files that no retained snapshot references.
 */

export interface ExpireSnapshotsOptions {
  /** Snapshots with an older `timestamp-ms` may expire. */
  readonly olderThanMs: number
  /** Snapshots of the main branch always kept, newest first (at least 1). */
  readonly retainLast: number
}

export interface ExpireSnapshotsResult {
  readonly expiredSnapshotIds: readonly bigint[]
  readonly deletedFiles: readonly string[]
  readonly state: LakeTableState
}

export async function expireSnapshots(
  table: IcebergTable,
  options: ExpireSnapshotsOptions,
): Promise<ExpireSnapshotsResult> {
  if (!Number.isSafeInteger(options.retainLast) || options.retainLast < 1) {
    throw new FlussError('INVALID_REQUEST', `retainLast must be at least 1, got ${options.retainLast}`)
  }
  const base = await table.load()
  const md = base.metadata
  const keep = new Set<bigint>(
    ancestors(md)
      .slice(0, options.retainLast)
      .map(s => s['snapshot-id']),
  )
  for (const ref of Object.values(md.refs)) keep.add(ref['snapshot-id'])
  if (base.flussSnapshot !== undefined) keep.add(base.flussSnapshot['snapshot-id'])
  const expired = md.snapshots.filter(
    s => !keep.has(s['snapshot-id']) && s['timestamp-ms'] < options.olderThanMs,
  )
  if (expired.length === 0) return { expiredSnapshotIds: [], deletedFiles: [], state: base }
  const expiredIds = new Set(expired.map(s => s['snapshot-id']))
  const metadata = withoutSnapshots(
    md,
    base.pointer.metadataLocation,
    expiredIds,
    table.clock(),
    table.options.previousVersionsMax,
  )
  const state = await table.commitMetadata(base, metadata)
  const reach = new ReachableFiles(table.io)
  const retained = await reach.of(metadata.snapshots)
  const candidates = await reach.of(expired, true)
  const deletedFiles = [...candidates].filter(f => !retained.has(f) && table.io.isUnderRoot(f))
  await table.io.delete(deletedFiles)
  return { expiredSnapshotIds: [...expiredIds], deletedFiles, state }
}
