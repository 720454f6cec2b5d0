import { lakeHintedMetadataKey, lakeMetadataFileVersion, VERSION_HINT_FILE } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { baseName, fileTimeMs } from '@sluice/lake/iceberg'
import type { IcebergTable } from '../table.js'
import { ReachableFiles } from './reachable.js'

/**
 * Orphan cleanup: deletes objects under the table location that nothing live references and that
 * are older than the safety window. Live: every file reachable from a snapshot in the current
 * metadata, the current metadata file and those in its metadata log, `version-hint.text` and the
 * `v<N>.metadata.json` copies of live metadata versions.
 *
 * A file's age comes from the UUIDv7 in its name (every file this writer creates has one), so
 * files of other writers, whose age is unknown, are never deleted. The window must exceed the
 * longest time between writing a file and committing it (a round's duration plus retries): a
 * commit in flight has written files that are not referenced yet.
 */

export interface DeleteOrphanFilesOptions {
  /** Only files created before this time may be deleted (now minus the safety window). */
  readonly olderThanMs: number
  /** Bound on objects listed in one run. */
  readonly maxListedFiles: number
}

export interface DeleteOrphanFilesResult {
  readonly deletedFiles: readonly string[]
  /** Objects examined; the run stops listing at `maxListedFiles`. */
  readonly listedFiles: number
}

export async function deleteOrphanFiles(
  table: IcebergTable,
  options: DeleteOrphanFilesOptions,
): Promise<DeleteOrphanFilesResult> {
  if (!Number.isSafeInteger(options.maxListedFiles) || options.maxListedFiles < 1) {
    throw new FlussError('INVALID_REQUEST', `maxListedFiles must be positive, got ${options.maxListedFiles}`)
  }
  const state = await table.load()
  const md = state.metadata
  const live = await new ReachableFiles(table.io).of(md.snapshots)
  const metadataFiles = [state.pointer.metadataLocation, ...md['metadata-log'].map(e => e['metadata-file'])]
  for (const f of metadataFiles) live.add(f)
  const liveVersions = metadataFiles.map(lakeMetadataFileVersion).filter((v): v is number => v !== undefined)
  const oldestVersion = liveVersions.length === 0 ? -1 : Math.min(...liveVersions)
  const orphans: string[] = []
  let listed = 0
  for await (const blob of table.io.list(md.location)) {
    if (++listed > options.maxListedFiles) break
    const location = table.io.locationOf(blob.key)
    const name = baseName(location)
    if (live.has(location) || name === VERSION_HINT_FILE) continue
    const hinted = /^v(\d+)\.metadata\.json$/.exec(name)
    if (hinted !== null) {
      const version = Number(hinted[1]) - 1
      if (version < oldestVersion && location === lakeHintedMetadataKey(md.location, version + 1)) {
        orphans.push(location)
      }
      continue
    }
    const createdMs = fileTimeMs(name)
    if (createdMs !== undefined && createdMs < options.olderThanMs) orphans.push(location)
  }
  await table.io.delete(orphans)
  return { deletedFiles: orphans, listedFiles: Math.min(listed, options.maxListedFiles) }
}
