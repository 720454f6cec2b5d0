import type { Admin, Table } from '@sluice/client'
import type { TableInfo } from '@sluice/core/metadata'
import type {
  BucketPosition,
  BucketStart,
  ChangeTypeName,
  ScanRecord,
  ScanRequest,
  ScanResult,
} from './gateway-backend.js'

const CHANGE_TYPES: readonly ChangeTypeName[] = [
  'append_only',
  'insert',
  'update_before',
  'update_after',
  'delete',
]

interface ResolvedStart {
  readonly partitionId?: number
  readonly bucket: number
  readonly offset: number
  /** The bucket's high watermark when the read started. */
  readonly highWatermark: number
}

/** Offsets of 'earliest'/'latest' starts, and every bucket's high watermark, via LIST_OFFSETS. */
async function resolveStarts(
  admin: Admin,
  info: TableInfo,
  starts: readonly BucketStart[],
  names: ReadonlyMap<number, string>,
): Promise<ResolvedStart[]> {
  const groups = new Map<number | undefined, BucketStart[]>()
  for (const s of starts) groups.set(s.partitionId, [...(groups.get(s.partitionId) ?? []), s])
  const out: ResolvedStart[] = []
  for (const [partitionId, group] of groups) {
    const name = partitionId === undefined ? undefined : names.get(partitionId)
    const buckets = group.map(s => s.bucket)
    const latest = await admin.listOffsets(info.tablePath, buckets, 'latest', name)
    const needsEarliest = group.some(s => s.offset === 'earliest')
    const earliest = needsEarliest
      ? await admin.listOffsets(info.tablePath, buckets, 'earliest', name)
      : new Map<number, number>()
    for (const s of group) {
      const highWatermark = latest.get(s.bucket) ?? 0
      const offset =
        s.offset === 'earliest'
          ? (earliest.get(s.bucket) ?? 0)
          : s.offset === 'latest'
            ? highWatermark
            : s.offset
      out.push({
        ...(partitionId === undefined ? {} : { partitionId }),
        bucket: s.bucket,
        offset,
        highWatermark,
      })
    }
  }
  return out
}

/**
 * One bounded log read with the SDK's LogScanner: subscribes every bucket at its start, polls
 * until records arrive (waiting at most `maxWaitMs` when no bucket has unread records, else until
 * the request's deadline), and returns at most `maxRecords` records with each bucket's next offset.
 */
export async function scanLog(
  admin: Admin,
  table: Table,
  request: ScanRequest,
  signal: AbortSignal,
  partitionNames: ReadonlyMap<number, string>,
): Promise<ScanResult> {
  const info = table.getTableInfo()
  const starts = await resolveStarts(admin, info, request.buckets, partitionNames)
  const scan =
    request.projection === undefined ? table.newScan() : table.newScan().project(request.projection)
  const scanner = scan.createLogScanner()
  const onAbort = () => scanner.wakeup()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    for (const s of starts) {
      if (s.partitionId === undefined) scanner.subscribe(s.bucket, s.offset)
      else scanner.subscribe(s.partitionId, s.bucket, s.offset)
    }
    const hasUnread = starts.some(s => s.offset < s.highWatermark)
    const records: ScanRecord[] = []
    const next = new Map(starts.map(s => [`${s.partitionId ?? '-'}:${s.bucket}`, s.offset]))
    const deadlineMs = Date.now() + (hasUnread ? Number.MAX_SAFE_INTEGER : request.maxWaitMs)
    while (records.length === 0 && !signal.aborted) {
      const batch = await scanner.poll(Math.max(0, Math.min(deadlineMs - Date.now(), 2_147_483_647)))
      for (const bucket of batch.buckets()) {
        for (const r of batch.records(bucket)) {
          if (records.length >= request.maxRecords) break
          const partition = bucket.partitionId === undefined ? {} : { partitionId: bucket.partitionId }
          records.push({
            ...partition,
            bucket: bucket.bucket,
            offset: r.offset,
            timestampMs: r.timestamp,
            changeType: CHANGE_TYPES[r.changeType],
            row: r.row,
          })
          next.set(`${bucket.partitionId ?? '-'}:${bucket.bucket}`, r.offset + 1)
        }
      }
      if (Date.now() >= deadlineMs) break
    }
    const positions: BucketPosition[] = starts.map(s => ({
      ...(s.partitionId === undefined ? {} : { partitionId: s.partitionId }),
      bucket: s.bucket,
      offset: next.get(`${s.partitionId ?? '-'}:${s.bucket}`) ?? s.offset,
    }))
    return { records, positions }
  } finally {
    signal.removeEventListener('abort', onAbort)
    scanner.close()
  }
}
