import { lakeManifestListKey } from '@sluice/core/blobstore'
import { FlussError, isFlussError } from '@sluice/core/errors'
import {
  appendSummary,
  COMMIT_USER_PROP,
  type DataFile,
  FileContent,
  FLUSS_COMMIT_USER,
  FLUSS_OFFSETS_PROP,
  type FlussBucketOffset,
  formatFlussOffsets,
  mergeFlussOffsets,
  newSnapshotId,
  uuidV7,
  withNewSnapshot,
  writeManifestList,
} from '@sluice/lake/iceberg'
import { isCommitStateUnknown } from '../catalog/catalog.js'
import { type AddedManifest, planManifests, writeAddedManifests } from './manifest-planner.js'
import type { IcebergTable } from './table.js'
import { type LakeTableState, snapshotManifests } from './table-state.js'

/**
 * One tiering commit: the round's data files and (for primary-key tables) equality delete files
 * become one snapshot (`append` for data only, `overwrite` with deletes, `delete` for deletes
 * only) whose summary carries `commit-user=__fluss_lake_tiering` and the merged `fluss-offsets`.
 *
 * Conflicts: when the pointer swap loses, the table is reloaded. If another Fluss tiering commit
 * got in, this commit is abandoned with LAKE_COMMIT_CONFLICT (the round's offsets are stale). If
 * only other writers committed (a Glue optimizer compaction, an Athena OPTIMIZE), the commit is
 * rebuilt on the new base, reusing its data files and manifests, up to `commitRetries` times.
 *
 * The commit owns the files it is given: after any definite failure it deletes them together with
 * everything it wrote, so a failed round leaves nothing behind. When the outcome is unknown (the
 * catalog did not answer), nothing is deleted.
 */

export interface AppendRequest {
  readonly dataFiles: readonly DataFile[]
  readonly deleteFiles?: readonly DataFile[]
  readonly summary: {
    /** Per tiered bucket, the next offset to tier (exclusive end); merged into the base's offsets. */
    readonly flussOffsets: readonly FlussBucketOffset[]
    /** Additional summary properties (string values). */
    readonly properties?: Readonly<Record<string, string>>
  }
  /** The state the round started from; the latest state when omitted. */
  readonly base?: LakeTableState
}

export interface CommitResult {
  readonly snapshotId: bigint
  readonly sequenceNumber: number
  readonly state: LakeTableState
}

function validateFiles(
  table: IcebergTable,
  dataFiles: readonly DataFile[],
  deleteFiles: readonly DataFile[],
): void {
  const ctx = table.writeContext()
  const specId = ctx.partitioning.spec['spec-id']
  const seen = new Set<string>()
  const bad = (f: DataFile, why: string) =>
    new FlussError('INVALID_REQUEST', `cannot commit ${f.filePath}: ${why}`)
  for (const f of [...dataFiles, ...deleteFiles]) {
    if (!f.filePath.startsWith(`${ctx.location}/`) || !table.io.isUnderRoot(f.filePath))
      throw bad(f, 'not under the table location')
    if (seen.has(f.filePath)) throw bad(f, 'listed twice')
    seen.add(f.filePath)
    if (f.specId !== specId || f.partition.length !== ctx.partitioning.fields.length)
      throw bad(f, `not of partition spec ${specId}`)
    if (
      !Number.isSafeInteger(f.recordCount) ||
      f.recordCount < 0 ||
      !Number.isSafeInteger(f.fileSizeInBytes)
    ) {
      throw bad(f, 'invalid record count or size')
    }
  }
  for (const f of dataFiles) if (f.content !== FileContent.DATA) throw bad(f, 'not a data file')
  for (const f of deleteFiles) {
    if (f.content === FileContent.DATA) throw bad(f, 'not a delete file')
    if (f.content === FileContent.EQUALITY_DELETES && (f.equalityIds ?? []).length === 0)
      throw bad(f, 'no equality ids')
  }
}

export async function commitAppend(table: IcebergTable, request: AppendRequest): Promise<CommitResult> {
  const deleteFiles = request.deleteFiles ?? []
  const files = [...request.dataFiles, ...deleteFiles]
  const tablePrefix = `${table.writeContext().location}/`
  const given = files.map(f => f.filePath).filter(p => p.startsWith(tablePrefix))
  let base: LakeTableState
  let added: AddedManifest[] = []
  try {
    validateFiles(table, request.dataFiles, deleteFiles)
    base = request.base ?? (await table.load())
    mergeFlussOffsets(base.flussOffsets, request.summary.flussOffsets)
    const snapshotId = newSnapshotId(new Set(base.metadata.snapshots.map(s => s['snapshot-id'])))
    added = await writeAddedManifests(
      table.io,
      c => table.manifestContext(c),
      table.writeContext().location,
      snapshotId,
      files,
      table.clock(),
    )
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptCommit(table, request, base, snapshotId, added, files, attempt)
      } catch (e) {
        if (!isFlussError(e, 'LAKE_COMMIT_CONFLICT') || attempt > table.options.commitRetries) throw e
        const latest = await table.load()
        if (latest.flussSnapshot?.['snapshot-id'] !== base.flussSnapshot?.['snapshot-id']) throw e
        base = latest
      }
    }
  } catch (e) {
    if (!isCommitStateUnknown(e)) await table.io.delete([...given, ...added.map(m => m.location)])
    throw e
  }
}

async function attemptCommit(
  table: IcebergTable,
  request: AppendRequest,
  base: LakeTableState,
  snapshotId: bigint,
  added: readonly AddedManifest[],
  files: readonly DataFile[],
  attempt: number,
): Promise<CommitResult> {
  const ctx = table.writeContext()
  const sequenceNumber = base.metadata['last-sequence-number'] + 1
  const written: string[] = []
  try {
    const plan = await planManifests({
      io: table.io,
      contextOf: c => table.manifestContext(c),
      tableLocation: ctx.location,
      carried: await snapshotManifests(table.io, base.currentSnapshot),
      added,
      snapshotId,
      sequenceNumber,
      specId: ctx.partitioning.spec['spec-id'],
      mergeMinCount: table.options.manifestMergeMinCount,
      nowMs: table.clock(),
    })
    written.push(...plan.written)
    const parentSnapshotId = base.currentSnapshot?.['snapshot-id']
    const list = writeManifestList(plan.manifests, {
      snapshotId,
      ...(parentSnapshotId === undefined ? {} : { parentSnapshotId }),
      sequenceNumber,
    })
    const listLocation = lakeManifestListKey(ctx.location, snapshotId, attempt, uuidV7(table.clock()))
    await table.io.write(listLocation, list, true)
    written.push(listLocation)
    const offsets = mergeFlussOffsets(base.flussOffsets, request.summary.flussOffsets)
    const summary = appendSummary(files, base.currentSnapshot, {
      ...request.summary.properties,
      [COMMIT_USER_PROP]: FLUSS_COMMIT_USER,
      [FLUSS_OFFSETS_PROP]: formatFlussOffsets(offsets),
    })
    const metadata = withNewSnapshot(
      base.metadata,
      base.pointer.metadataLocation,
      { snapshotId, manifestList: listLocation, summary, nowMs: table.clock() },
      table.options.previousVersionsMax,
    )
    const state = await table.commitMetadata(base, metadata)
    await table.io.delete(plan.folded).catch(() => undefined)
    return { snapshotId, sequenceNumber, state }
  } catch (e) {
    if (!isCommitStateUnknown(e)) await table.io.delete(written)
    throw e
  }
}
