import { FlussError } from '@sluice/core/errors'
import type { FlussBucketOffset, ManifestFile, Snapshot, TableMetadata } from '@sluice/lake/iceberg'
import {
  ancestors,
  currentSnapshot,
  FLUSS_OFFSETS_PROP,
  isFlussSnapshot,
  parseFlussOffsets,
  parseTableMetadata,
  readManifestList,
} from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'
import type { CatalogPointer } from '../catalog/catalog.js'

/** A loaded lake table: the catalog pointer, its metadata and where Fluss tiering stands. */
export interface LakeTableState {
  readonly pointer: CatalogPointer
  readonly metadata: TableMetadata
  readonly currentSnapshot?: Snapshot
  /** The newest snapshot on the main branch committed by Fluss tiering. */
  readonly flussSnapshot?: Snapshot
  /** `fluss-offsets` of `flussSnapshot`: per bucket, the next offset to tier (empty when none). */
  readonly flussOffsets: readonly FlussBucketOffset[]
}

export async function readState(io: LakeFileIO, pointer: CatalogPointer): Promise<LakeTableState> {
  const bytes = await io.readIfExists(pointer.metadataLocation)
  if (bytes === undefined) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `the catalog points at ${pointer.metadataLocation}, which does not exist`,
    )
  }
  const metadata = parseTableMetadata(Buffer.from(bytes).toString('utf8'))
  return stateOf(pointer, metadata)
}

export function stateOf(pointer: CatalogPointer, metadata: TableMetadata): LakeTableState {
  const flussSnapshot = ancestors(metadata).find(isFlussSnapshot)
  const offsets = flussSnapshot?.summary[FLUSS_OFFSETS_PROP]
  if (flussSnapshot !== undefined && offsets !== undefined && !offsets.trim().startsWith('[')) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `snapshot ${flussSnapshot['snapshot-id']} records fluss-offsets as a file path; only inline JSON is supported`,
    )
  }
  return {
    pointer,
    metadata,
    currentSnapshot: currentSnapshot(metadata),
    flussSnapshot,
    flussOffsets: offsets === undefined ? [] : parseFlussOffsets(offsets),
  }
}

/** The manifests listed by a snapshot (none for no snapshot). */
export async function snapshotManifests(
  io: LakeFileIO,
  snapshot: Snapshot | undefined,
): Promise<ManifestFile[]> {
  if (snapshot === undefined) return []
  return readManifestList(await io.read(snapshot['manifest-list']))
}
