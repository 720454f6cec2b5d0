import { FlussError } from '@sluice/core/errors'
import { tableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { Table } from '../table/table.js'
import type { LogChange } from './union-merge.js'
import type { UnionBucketRange } from './union-scan.js'

export interface LogTailOptions {
  readonly pollTimeoutMs: number
  readonly logReadTimeoutMs: number
}

/**
 * The log of each bucket from its start offset up to (excluding) its end offset, poll by poll.
 * Records at or past a bucket's end (written after the scan was planned) are dropped and the
 * bucket is unsubscribed once it reached its end. REQUEST_TIME_OUT when the ranges are not read
 * within `logReadTimeoutMs`.
 */
export async function* readLogTail(
  table: Table,
  ranges: readonly UnionBucketRange[],
  options: LogTailOptions,
): AsyncGenerator<LogChange[]> {
  const info = table.getTableInfo()
  const pending = ranges.filter(r => r.endOffset > 0 && r.startOffset < r.endOffset)
  if (pending.length === 0) return
  const scanner = table.newScan().createLogScanner()
  const ends = new Map<string, { range: UnionBucketRange; end: number }>()
  try {
    for (const r of pending) {
      if (r.partitionId === undefined) scanner.subscribe(r.bucket, r.startOffset)
      else scanner.subscribe(r.partitionId, r.bucket, r.startOffset)
      ends.set(key(info.tableId, r), { range: r, end: r.endOffset })
    }
    const deadline = Date.now() + options.logReadTimeoutMs
    while (ends.size > 0) {
      if (Date.now() > deadline) {
        throw new FlussError(
          'REQUEST_TIME_OUT',
          `union read: the log was not read within ${options.logReadTimeoutMs} ms`,
        )
      }
      const records = await scanner.poll(options.pollTimeoutMs)
      const out: LogChange[] = []
      for (const b of records.buckets()) {
        const target = ends.get(tableBucketKey(b))
        if (target === undefined) continue
        for (const r of records.records(b)) {
          if (r.offset >= target.end) break
          out.push({ ...r, bucket: b.bucket, source: 'log' })
        }
      }
      for (const [k, t] of ends) {
        const position = scanner.position(t.range.bucket, t.range.partitionId)
        if (position !== undefined && position >= t.end) {
          ends.delete(k)
          if (t.range.partitionId === undefined) scanner.unsubscribe(t.range.bucket)
          else scanner.unsubscribe(t.range.partitionId, t.range.bucket)
        }
      }
      if (out.length > 0) yield out
    }
  } finally {
    scanner.close()
  }
}

function key(tableId: number, r: UnionBucketRange): string {
  return tableBucketKey(tableBucket(tableId, r.bucket, r.partitionId))
}
