import { FlussError } from '@sluice/core/errors'
import { checkFlussOffset, flussBucketKey } from './fluss-offsets.js'
import { stringifyJson } from './json.js'
import { type DataFile, FileContent, type FlussBucketOffset, type Snapshot } from './types.js'
import { samePartition } from './values.js'

/**
 * Snapshot summaries as Iceberg's Java `SnapshotSummary` writes them (every value a string; added
 * metrics only when non-zero; totals carried from the parent summary, or omitted when the parent
 * has none), plus Fluss's `commit-user` and `fluss-offsets`.
 *
 * `fluss-offsets` is the inline JSON of Fluss 0.8: `[{"bucket":0,"offset":1234}]`, and for
 * partitioned tables `[{"partition_id":3,"partition_name":"p=x","bucket":0,"offset":3}]`. The
 * offsets are exclusive end offsets, and every snapshot lists every bucket tiered so far, so the
 * latest Fluss snapshot alone says where each bucket's next round starts.
 */

const TOTALS = [
  'total-records',
  'total-files-size',
  'total-data-files',
  'total-delete-files',
  'total-position-deletes',
  'total-equality-deletes',
] as const

export function formatFlussOffsets(offsets: readonly FlussBucketOffset[]): string {
  const sorted = [...offsets].sort(
    (a, b) => (a.partitionId ?? -1) - (b.partitionId ?? -1) || a.bucket - b.bucket,
  )
  return stringifyJson(
    sorted.map(o =>
      o.partitionId === undefined
        ? { bucket: o.bucket, offset: o.offset }
        : {
            partition_id: o.partitionId,
            partition_name: o.partitionName ?? '',
            bucket: o.bucket,
            offset: o.offset,
          },
    ),
  )
}

/** The base offsets overridden by `updates`; an update may not move a bucket backwards. */
export function mergeFlussOffsets(
  base: readonly FlussBucketOffset[],
  updates: readonly FlussBucketOffset[],
): FlussBucketOffset[] {
  const merged = new Map(base.map(o => [flussBucketKey(o), o]))
  for (const u of updates) {
    checkFlussOffset(u)
    const old = merged.get(flussBucketKey(u))
    if (old !== undefined && u.offset < old.offset) {
      throw new FlussError(
        'INVALID_REQUEST',
        `bucket ${flussBucketKey(u)} would move back from offset ${old.offset} to ${u.offset}`,
      )
    }
    merged.set(flussBucketKey(u), u)
  }
  return [...merged.values()]
}

/** The operation Java's RowDelta reports: data only → append, deletes only → delete, both → overwrite. */
export function operationOf(files: readonly DataFile[]): 'append' | 'overwrite' | 'delete' {
  const data = files.some(f => f.content === FileContent.DATA)
  const deletes = files.some(f => f.content !== FileContent.DATA)
  return deletes ? (data ? 'overwrite' : 'delete') : 'append'
}

function changedPartitions(files: readonly DataFile[]): number {
  const seen: DataFile[] = []
  for (const f of files) {
    if (!seen.some(s => s.specId === f.specId && samePartition(s.partition, f.partition))) seen.push(f)
  }
  return seen.length
}

/** The summary of a snapshot adding `added` on top of `parent`. */
export function appendSummary(
  added: readonly DataFile[],
  parent: Snapshot | undefined,
  extra: Readonly<Record<string, string>>,
): Snapshot['summary'] {
  const data = added.filter(f => f.content === FileContent.DATA)
  const eq = added.filter(f => f.content === FileContent.EQUALITY_DELETES)
  const pos = added.filter(f => f.content === FileContent.POSITION_DELETES)
  const sum = (fs: readonly DataFile[], m: (f: DataFile) => number) => fs.reduce((n, f) => n + m(f), 0)
  const added$ = {
    'added-data-files': data.length,
    'added-delete-files': eq.length + pos.length,
    'added-equality-delete-files': eq.length,
    'added-position-delete-files': pos.length,
    'added-records': sum(data, f => f.recordCount),
    'added-equality-deletes': sum(eq, f => f.recordCount),
    'added-position-deletes': sum(pos, f => f.recordCount),
    'added-files-size': sum(added, f => f.fileSizeInBytes),
  }
  const out: Record<string, string> = { operation: operationOf(added) }
  for (const [k, v] of Object.entries(added$)) if (v > 0) out[k] = String(v)
  out['changed-partition-count'] = String(changedPartitions(added))
  const deltas: Record<(typeof TOTALS)[number], number> = {
    'total-records': added$['added-records'],
    'total-files-size': added$['added-files-size'],
    'total-data-files': data.length,
    'total-delete-files': eq.length + pos.length,
    'total-position-deletes': added$['added-position-deletes'],
    'total-equality-deletes': added$['added-equality-deletes'],
  }
  for (const k of TOTALS) {
    const previous = parent === undefined ? '0' : parent.summary[k]
    if (previous === undefined || !/^\d+$/.test(previous)) continue
    out[k] = String(Number(previous) + deltas[k])
  }
  return { ...out, ...extra, operation: out.operation }
}
