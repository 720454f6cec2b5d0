import { FlussError } from '../errors/index.js'
import { tablePathToString } from '../metadata/index.js'
import { lakeKey, type MetaStore, type VersionedItem } from '../metastore/index.js'
import type { ApiRequest, ApiResponseInit } from '../rpc/index.js'
import type { Catalog } from './catalog.js'
import { corruptItem, ItemReader } from './item-reader.js'
import { toTablePath } from './rpc-convert.js'

/** How far one bucket is tiered: the first offset the lake does not hold. */
export interface LakeBucketOffset {
  readonly partitionId?: number
  readonly partitionName?: string
  readonly bucket: number
  readonly offset: number
}

/**
 * The read side of a table's tiering item (`TABLE#<id>/LAKE`, written by the tiering rounds): the
 * last committed lake snapshot and the per-bucket log offsets it holds. Servers only read it: for
 * GET_LAKE_SNAPSHOT and to keep remote segments a lake table has not tiered yet.
 */
export interface LakeOffsets {
  /** The last lake snapshot committed with these offsets; null before the first. */
  readonly snapshotId: bigint | null
  readonly tieredOffsets: readonly LakeBucketOffset[]
}

export const NO_LAKE_OFFSETS: LakeOffsets = { snapshotId: null, tieredOffsets: [] }

function decodeTieredOffsets(stored: VersionedItem): LakeBucketOffset[] {
  const v = stored.value.tieredOffsets
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw corruptItem(stored, "field 'tieredOffsets' is not a list")
  const int = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
  return v.map(e => {
    const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>
    if (!int(o.bucket) || !int(o.offset)) {
      throw corruptItem(stored, `field 'tieredOffsets' holds an invalid entry ${JSON.stringify(e)}`)
    }
    return {
      ...(int(o.partitionId) ? { partitionId: o.partitionId } : {}),
      ...(typeof o.partitionName === 'string' ? { partitionName: o.partitionName } : {}),
      bucket: o.bucket,
      offset: o.offset,
    }
  })
}

/** Decodes the offsets part of a stored tiering item (the other fields are the tiering's own). */
export function decodeLakeOffsets(stored: VersionedItem): LakeOffsets {
  const snapshotId = new ItemReader(stored).stringOrNull('lastSnapshotId')
  if (snapshotId !== null && !/^\d+$/.test(snapshotId)) {
    throw corruptItem(stored, 'lastSnapshotId is not a number')
  }
  return {
    snapshotId: snapshotId === null ? null : BigInt(snapshotId),
    tieredOffsets: decodeTieredOffsets(stored),
  }
}

/** The tiering offsets of a table; NO_LAKE_OFFSETS when it was never tiered. */
export async function readLakeOffsets(store: MetaStore, tableId: number): Promise<LakeOffsets> {
  const { pk, sk } = lakeKey(tableId)
  const stored = await store.get(pk, sk)
  return stored === undefined ? NO_LAKE_OFFSETS : decodeLakeOffsets(stored)
}

/**
 * GET_LAKE_SNAPSHOT (Fluss's `getLakeSnapshot`) from the tiering item: the table id, the last lake
 * snapshot and each bucket's tiered log end offset. Only the latest snapshot is kept, so a request
 * naming another snapshot id, like a table never tiered, is LAKE_SNAPSHOT_NOT_EXIST.
 */
export async function getLakeSnapshot(
  catalog: Catalog,
  req: ApiRequest<'GET_LAKE_SNAPSHOT'>,
): Promise<ApiResponseInit<'GET_LAKE_SNAPSHOT'>> {
  const readable = req.readable === true
  if (readable && req.snapshotId !== null) {
    throw new FlussError(
      'INVALID_REQUEST',
      'GetLakeSnapshotRequest cannot set both snapshot_id and readable=true; use one or the other.',
    )
  }
  const table = await catalog.getTableOrThrow(toTablePath(req.tablePath))
  const { tableId } = table
  const offsets = await readLakeOffsets(catalog.direct.store, tableId)
  const wanted = req.snapshotId === null ? undefined : BigInt(req.snapshotId)
  if (offsets.snapshotId === null || (wanted !== undefined && wanted !== offsets.snapshotId)) {
    const what = readable ? 'readable snapshot' : 'snapshot'
    const idPart = wanted === undefined ? '' : `, snapshot id: ${wanted}`
    throw new FlussError(
      'LAKE_SNAPSHOT_NOT_EXIST',
      `Lake table ${what} doesn't exist for table: ${tablePathToString(table.tablePath)}, table id: ${tableId}${idPart}`,
    )
  }
  return {
    tableId,
    snapshotId: Number(offsets.snapshotId),
    bucketSnapshots: offsets.tieredOffsets.map(o => ({
      bucketId: o.bucket,
      logOffset: o.offset,
      ...(o.partitionId === undefined ? {} : { partitionId: o.partitionId }),
    })),
  }
}

/**
 * GET_FILESYSTEM_SECURITY_TOKEN as Fluss answers it for a file system that hands out no
 * credentials: the scheme of the remote data dir (`file`, `s3`), an empty token and no expiry.
 * Clients then read remote files with their own configured access (or none, for local files).
 */
export function fileSystemSecurityToken(
  remoteDataDir: string,
): ApiResponseInit<'GET_FILESYSTEM_SECURITY_TOKEN'> {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(remoteDataDir)
  const windowsDrive = /^[a-zA-Z]:[\\/]/.test(remoteDataDir)
  const scheme = match?.[1] === undefined || windowsDrive ? 'file' : match[1].toLowerCase()
  return { schema: scheme, token: new Uint8Array(0), additionInfo: [] }
}
