import { FlussError } from '@sluice/core/errors'
import { isJsonObject, parseJson, stringifyJson } from './json.js'
import type { FlussBucketOffset, Snapshot } from './types.js'

/**
 * The Fluss markers of a lake snapshot's summary: `commit-user=__fluss_lake_tiering` and
 * `fluss-offsets`, the inline JSON of Fluss 0.8: `[{"bucket":0,"offset":1234}]`, and for
 * partitioned tables `[{"partition_id":3,"partition_name":"p=x","bucket":0,"offset":3}]`. Offsets
 * are exclusive end offsets: the next offset to tier, i.e. where a union read continues in the log.
 */

export const COMMIT_USER_PROP = 'commit-user'
export const FLUSS_COMMIT_USER = '__fluss_lake_tiering'
export const FLUSS_OFFSETS_PROP = 'fluss-offsets'

export function isFlussSnapshot(s: Snapshot): boolean {
  return s.summary[COMMIT_USER_PROP] === FLUSS_COMMIT_USER
}

/** Identifies a bucket across partitions: `<partitionId|->:<bucket>`. */
export function flussBucketKey(o: { readonly partitionId?: number; readonly bucket: number }): string {
  return `${o.partitionId ?? '-'}:${o.bucket}`
}

/** INVALID_REQUEST unless bucket, offset and partition id are non-negative safe integers. */
export function checkFlussOffset(o: FlussBucketOffset): void {
  const ok = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0
  if (!ok(o.bucket) || !ok(o.offset) || (o.partitionId !== undefined && !ok(o.partitionId))) {
    throw new FlussError('INVALID_REQUEST', `invalid bucket offset ${JSON.stringify(o)}`)
  }
}

/** Parses `fluss-offsets`; CORRUPT_MESSAGE when it is not the inline JSON form. */
export function parseFlussOffsets(text: string): FlussBucketOffset[] {
  const v = parseJson(text)
  if (!Array.isArray(v))
    throw new FlussError('CORRUPT_MESSAGE', `fluss-offsets is not a JSON array: ${text.slice(0, 80)}`)
  return v.map(e => {
    if (!isJsonObject(e)) throw new FlussError('CORRUPT_MESSAGE', 'fluss-offsets entry is not an object')
    const o: FlussBucketOffset = {
      ...(e.partition_id === undefined || e.partition_id === null
        ? {}
        : { partitionId: Number(e.partition_id) }),
      ...(typeof e.partition_name === 'string' ? { partitionName: e.partition_name } : {}),
      bucket: Number(e.bucket),
      offset: Number(e.offset),
    }
    try {
      checkFlussOffset(o)
    } catch {
      throw new FlussError('CORRUPT_MESSAGE', `fluss-offsets entry ${stringifyJson(e)} is invalid`)
    }
    return o
  })
}

/** `fluss-offsets` of a snapshot (empty when it has none); CORRUPT_MESSAGE for the file-path form. */
export function flussOffsetsOf(snapshot: Snapshot | undefined): FlussBucketOffset[] {
  const text = snapshot?.summary[FLUSS_OFFSETS_PROP]
  if (snapshot === undefined || text === undefined) return []
  if (!text.trim().startsWith('[')) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `snapshot ${snapshot['snapshot-id']} records fluss-offsets as a file path; only inline JSON is supported`,
    )
  }
  return parseFlussOffsets(text)
}
