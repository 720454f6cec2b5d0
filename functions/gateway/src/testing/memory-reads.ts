import type { Row } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { partitionGetter } from '@sluice/core/metadata'
import { CompactedKeyEncoder } from '@sluice/core/row'
import { fairShares } from '../backend/fair-shares.js'
import type * as B from '../backend/gateway-backend.js'
import type { MemoryTable } from './memory-catalog.js'

/** Key of a row in a table's KV map: partition id and the encoded primary key. */
export function kvKey(t: MemoryTable, pid: number | undefined, row: Row): string {
  return `${pid ?? '-'}:${CompactedKeyEncoder.of(t.info.rowType, t.info.primaryKeys).encodeKey(row).toString('hex')}`
}

/** The partition id a key row belongs to; null when its partition does not exist. */
function partitionIdOfKey(t: MemoryTable, row: Row): number | undefined | null {
  if (!t.info.isPartitioned) return undefined
  return t.partitions.get(partitionGetter(t.info.rowType, t.info.partitionKeys)(row))?.partitionId ?? null
}

export function lookupRows(t: MemoryTable, keys: readonly Row[]): (Row | null)[] {
  return keys.map(key => {
    const pid = partitionIdOfKey(t, key)
    return pid === null ? null : (t.kv.get(kvKey(t, pid, key)) ?? null)
  })
}

export function prefixRows(
  t: MemoryTable,
  columns: readonly string[],
  prefixes: readonly Row[],
  maxRows: number,
): B.PrefixLookupResult[] {
  const encoder = CompactedKeyEncoder.of(t.info.rowType, columns)
  return prefixes.map(prefix => {
    const want = encoder.encodeKey(prefix).toString('hex')
    const rows = [...t.kv.values()].filter(row => encoder.encodeKey(row).toString('hex') === want)
    return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows }
  })
}

/** A scan of the in-memory logs, sharing `maxRecords` over the buckets as the SDK backend does. */
export function scanTable(t: MemoryTable, request: B.ScanRequest): B.ScanResult {
  const starts = request.buckets.map(b => {
    const log = t.logs.get(`${b.partitionId ?? '-'}:${b.bucket}`) ?? []
    const offset = b.offset === 'earliest' ? 0 : b.offset === 'latest' ? log.length : b.offset
    if (offset > log.length) {
      throw new FlussError(
        'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
        `Offset ${offset} is beyond the log end ${log.length}.`,
      )
    }
    return { b, log, offset }
  })
  const quotas = fairShares(
    starts.map(s => s.log.length - s.offset),
    request.maxRecords,
  )
  const records: B.ScanRecord[] = []
  const positions = starts.map(({ b, log, offset }, i) => {
    const partition = b.partitionId === undefined ? {} : { partitionId: b.partitionId }
    const end = offset + quotas[i]
    for (let o = offset; o < end; o++) {
      const rec = log[o]
      const row = request.projection === undefined ? rec.row : request.projection.map(k => rec.row[k])
      records.push({
        ...partition,
        bucket: b.bucket,
        offset: o,
        timestampMs: rec.timestampMs,
        changeType: rec.changeType,
        row,
      })
    }
    return { ...partition, bucket: b.bucket, offset: end }
  })
  const more = starts.some((s, i) => s.offset + quotas[i] < s.log.length)
  return { records, positions, more }
}

export function snapshotRows(t: MemoryTable, request: B.SnapshotRequest): B.SnapshotResult {
  const prefix = `${request.partitionId ?? '-'}:`
  const rows = [...t.kv.entries()].filter(([k]) => k.startsWith(prefix)).map(([, row]) => row)
  return { rows: rows.slice(0, request.maxRows), truncated: rows.length > request.maxRows }
}

export function unionRows(t: MemoryTable, maxRows: number): B.UnionReadResult {
  const rows = t.info.hasPrimaryKey
    ? [...t.kv.values()]
    : [...t.logs.values()].flatMap(log => log.map(record => record.row))
  return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows }
}
