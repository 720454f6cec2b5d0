import {
  type BlobStore,
  blobLocation,
  lakeHintedMetadataKey,
  lakeTableKey,
  lakeVersionHintKey,
} from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'

/**
 * Where a reader finds lake files. Iceberg metadata records absolute locations
 * (`s3://bucket/prefix/lake/db/t/...`, `file:///data/lake/db/t/...`); a source reads them.
 * `blobStoreLakeSource` serves the locations under one BlobStore root (the cluster's
 * `sluice.blobstore.uri`, where tiering writes the lake).
 */
export interface LakeSource {
  /** The lake root: tables live at `<rootUri>/lake/<database>/<table>`. */
  readonly rootUri: string
  /** The bytes at `location`, or undefined when no such object exists. */
  read(location: string): Promise<Uint8Array | undefined>
}

/** A lake source over a BlobStore whose root is `rootUri`. */
export function blobStoreLakeSource(blobStore: BlobStore, rootUri: string): LakeSource {
  if (!/^[a-z][a-z0-9+.-]*:\/\/./i.test(rootUri)) {
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `lake root '${rootUri}' is not an absolute URI`)
  }
  const root = rootUri.replace(/\/+$/, '')
  return {
    rootUri: root,
    read: async location => {
      if (!location.startsWith(`${root}/`)) {
        throw new FlussError('INVALID_REQUEST', `lake file ${location} is not under the lake root ${root}`)
      }
      return blobStore.get(location.slice(root.length + 1))
    },
  }
}

/** `<root>/lake/<database>/<table>`: where tiering puts a table by default. */
export function lakeTableLocation(source: LakeSource, path: TablePath): string {
  return blobLocation(source.rootUri, lakeTableKey(path))
}

/**
 * The table's newest metadata file as file-based readers find it: `metadata/version-hint.text`
 * holds N, the metadata is `metadata/v<N>.metadata.json`. Undefined when the table has no hint
 * (not tiered yet).
 */
export async function hintedMetadataLocation(
  source: LakeSource,
  tableLocation: string,
): Promise<string | undefined> {
  const hintLocation = lakeVersionHintKey(tableLocation)
  const hint = await source.read(hintLocation)
  if (hint === undefined) return undefined
  const text = Buffer.from(hint).toString('utf8').trim()
  if (!/^\d+$/.test(text)) {
    throw new FlussError('CORRUPT_MESSAGE', `${hintLocation} holds '${text}'`)
  }
  return lakeHintedMetadataKey(tableLocation, Number(text))
}

/** Reads a lake file that must exist; LAKE_SNAPSHOT_NOT_EXIST when it is gone. */
export async function readLakeFile(source: LakeSource, location: string): Promise<Uint8Array> {
  const bytes = await source.read(location)
  if (bytes === undefined) {
    throw new FlussError('LAKE_SNAPSHOT_NOT_EXIST', `lake file ${location} does not exist`)
  }
  return bytes
}
