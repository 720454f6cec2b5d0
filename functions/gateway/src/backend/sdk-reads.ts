import type { LimitBatchScanner, Lookuper, Table } from '@sluice/client'
import type { Row } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { PrefixLookupResult, SnapshotRequest, SnapshotResult } from './gateway-backend.js'

/** Longest single wait on a limit scan, so that a passed deadline is noticed. */
const POLL_SLICE_MS = 500

/** The values of `columns` of a full-width row, in that order (the key row a Lookuper takes). */
function keyRow(info: TableInfo, columns: readonly string[], row: Row): Row {
  return columns.map(name => row[info.rowType.fields.findIndex(f => f.name === name)])
}

function checkNotAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new FlussError('REQUEST_TIME_OUT', 'The request deadline passed.')
}

/**
 * Point lookups of full-width key rows through the SDK's primary-key Lookuper, all at once (the
 * SDK batches them per server). The Lookuper validates each key (INVALID_REQUEST naming the
 * column); an absent key, or a key in a partition that does not exist, is null.
 */
export async function lookupKeys(
  lookuper: Lookuper,
  info: TableInfo,
  keys: readonly Row[],
): Promise<(Row | null)[]> {
  const results = await Promise.all(keys.map(k => lookuper.lookup(keyRow(info, info.primaryKeys, k))))
  return results.map(r => r.singletonRow())
}

/**
 * The lookup columns of a prefix lookup in the order the SDK takes them: the bucket key in its
 * order, then the partition columns; a column that is neither stays last, so the SDK names it in
 * its error. The order of the columns in a request carries no meaning (prefix values are objects).
 */
export function prefixColumns(info: TableInfo, columns: readonly string[]): string[] {
  const canonical = [...info.bucketKeys, ...info.partitionKeys].filter(c => columns.includes(c))
  return [...new Set([...canonical, ...columns])]
}

/**
 * Prefix lookups through a `lookupBy(columns)` Lookuper (`columns` as `prefixColumns` orders
 * them): each prefix's rows in key order, cut to `maxRowsPerPrefix` (`truncated` when more matched).
 */
export async function prefixLookupRows(
  lookuper: Lookuper,
  info: TableInfo,
  columns: readonly string[],
  prefixes: readonly Row[],
  maxRowsPerPrefix: number,
): Promise<PrefixLookupResult[]> {
  const results = await Promise.all(prefixes.map(p => lookuper.lookup(keyRow(info, columns, p))))
  return results.map(r => {
    const rows = r.rows()
    return { rows: rows.slice(0, maxRowsPerPrefix), truncated: rows.length > maxRowsPerPrefix }
  })
}

/** Every row of one limit scan, polling in slices so that the request's deadline is noticed. */
async function drain(scanner: LimitBatchScanner, signal: AbortSignal): Promise<Row[]> {
  const rows: Row[] = []
  for (;;) {
    checkNotAborted(signal)
    const batch = await scanner.pollBatch(POLL_SLICE_MS)
    if (batch === null) return rows
    rows.push(...batch)
  }
}

/**
 * A bounded read of a primary-key table (one partition of a partitioned one) with the SDK's limit
 * batch scanner: bucket by bucket, the first rows of each bucket in key order, asking each bucket
 * for one row more than the rows still wanted, so that `truncated` is exact and at most
 * `maxRows + 1` rows are held. Buckets are read one after another, each at its own moment: this is
 * not a consistent point-in-time snapshot of the table.
 */
export async function readSnapshot(
  table: Table,
  request: SnapshotRequest,
  signal: AbortSignal,
): Promise<SnapshotResult> {
  const info = table.getTableInfo()
  const rows: Row[] = []
  for (let bucket = 0; bucket < info.numBuckets; bucket++) {
    const scan = table.newScan().limit(request.maxRows - rows.length + 1)
    const scanner =
      request.partitionId === undefined
        ? scan.createBatchScanner(bucket)
        : scan.createBatchScanner(request.partitionId, bucket)
    try {
      rows.push(...(await drain(scanner, signal)))
    } finally {
      scanner.close()
    }
    if (rows.length > request.maxRows) return { rows: rows.slice(0, request.maxRows), truncated: true }
  }
  return { rows, truncated: false }
}
