import type { Admin, Table } from '@sluice/client'
import type { TableInfo } from '@sluice/core/metadata'
import { fairShares } from './fair-shares.js'
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
 * One bounded log read with the SDK's LogScanner. Every bucket is subscribed at its start; the
 * request's `maxRecords` is shared fairly over the records the buckets had unread when the read
 * began (`fairShares`), and polling goes on until each bucket gave its share (a bucket that did is
 * unsubscribed) or the request's deadline. When no bucket has unread records it waits at most
 * `maxWaitMs` for the first new ones. Returns the records bucket by bucket, each bucket's next
 * offset, and whether records that were unread at the start are left (`more`).
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
  const quotas = fairShares(
    starts.map(s => Math.max(0, s.highWatermark - s.offset)),
    request.maxRecords,
  )
  const waiting = quotas.every(q => q === 0)
  const scan =
    request.projection === undefined ? table.newScan() : table.newScan().project(request.projection)
  const scanner = scan.createLogScanner()
  const onAbort = () => scanner.wakeup()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    const index = new Map(starts.map((s, i) => [bucketKey(s.partitionId, s.bucket), i]))
    const taken = starts.map((): ScanRecord[] => [])
    const next = starts.map(s => s.offset)
    const open = new Set<number>()
    starts.forEach((s, i) => {
      if (!waiting && quotas[i] === 0) return
      open.add(i)
      if (s.partitionId === undefined) scanner.subscribe(s.bucket, s.offset)
      else scanner.subscribe(s.partitionId, s.bucket, s.offset)
    })
    const close = (i: number) => {
      open.delete(i)
      const s = starts[i]
      if (s.partitionId === undefined) scanner.unsubscribe(s.bucket)
      else scanner.unsubscribe(s.partitionId, s.bucket)
    }
    for (const i of [...open]) if (!waiting && next[i] >= starts[i].highWatermark) close(i)
    let total = 0
    const deadlineMs = Date.now() + (waiting ? request.maxWaitMs : Number.MAX_SAFE_INTEGER)
    while (open.size > 0 && !signal.aborted && !(waiting && total > 0)) {
      const batch = await scanner.poll(Math.max(0, Math.min(deadlineMs - Date.now(), 2_147_483_647)))
      for (const bucket of batch.buckets()) {
        const i = index.get(bucketKey(bucket.partitionId, bucket.bucket))
        if (i === undefined || !open.has(i)) continue
        for (const r of batch.records(bucket)) {
          if (waiting ? total >= request.maxRecords : taken[i].length >= quotas[i]) break
          taken[i].push({
            ...(bucket.partitionId === undefined ? {} : { partitionId: bucket.partitionId }),
            bucket: bucket.bucket,
            offset: r.offset,
            timestampMs: r.timestamp,
            changeType: CHANGE_TYPES[r.changeType],
            row: r.row,
          })
          next[i] = r.offset + 1
          total++
        }
        if (!waiting && (taken[i].length >= quotas[i] || next[i] >= starts[i].highWatermark)) close(i)
      }
      if (Date.now() >= deadlineMs) break
    }
    const positions: BucketPosition[] = starts.map((s, i) => ({
      ...(s.partitionId === undefined ? {} : { partitionId: s.partitionId }),
      bucket: s.bucket,
      offset: next[i],
    }))
    const more = starts.some((s, i) => next[i] < s.highWatermark)
    return { records: taken.flat(), positions, more }
  } finally {
    signal.removeEventListener('abort', onAbort)
    scanner.close()
  }
}

const bucketKey = (partitionId: number | undefined, bucket: number) => `${partitionId ?? '-'}:${bucket}`
