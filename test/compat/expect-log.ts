import { expect } from 'vitest'
import { type Canonical, type ColumnSpec, floatText, microsecondText, parseType } from './canonical.js'
import type { LogRecordOut } from './drivers/driver.js'

/** A change of a primary-key table's changelog (or `+A` of a log table). */
export interface Change {
  readonly change: string
  readonly row: readonly Canonical[]
}

type Plain = string | number | boolean | null

/** Canonical row of a small table from plain JS values (numbers for INT/BIGINT/DOUBLE, …). */
export function rowOf(columns: readonly ColumnSpec[], values: readonly Plain[]): Canonical[] {
  if (values.length !== columns.length)
    throw new Error(`${values.length} values for ${columns.length} columns`)
  return values.map((v, k) => {
    if (v === null) return null
    const type = columns[k].type
    if (type === 'DOUBLE' || type === 'FLOAT') return floatText(v as number, type === 'DOUBLE')
    if (typeof v === 'boolean') return v ? 'true' : 'false'
    return String(v)
  })
}

/**
 * Rows as pyfluss's record API sees them: it converts timestamps to Python datetimes, which keep
 * microseconds, so nanoseconds of TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) values are cut, at any depth
 * of a nested value.
 */
export function microsecondRow(columns: readonly ColumnSpec[], row: readonly Canonical[]): Canonical[] {
  return row.map((v, k) => microsecondText(v, parseType(columns[k].type)))
}

const keyOf = (row: readonly Canonical[], keyIndexes: readonly number[], partition: string | null) =>
  JSON.stringify([partition, ...keyIndexes.map(k => row[k])])

/**
 * The changes of each key in log order. Checks on the way that offsets ascend within each bucket
 * of each partition (a key always lives in one bucket, so its order is defined).
 */
export function changesByKey(
  records: readonly LogRecordOut[],
  keyIndexes: readonly number[],
): Record<string, Change[]> {
  const sorted = [...records].sort(
    (a, b) =>
      String(a.partition).localeCompare(String(b.partition)) || a.bucket - b.bucket || a.offset - b.offset,
  )
  const out: Record<string, Change[]> = {}
  let previous: LogRecordOut | undefined
  for (const r of sorted) {
    if (previous && previous.partition === r.partition && previous.bucket === r.bucket) {
      expect(r.offset, `offsets of bucket ${r.bucket} (${r.partition})`).toBeGreaterThan(previous.offset)
    }
    previous = r
    const key = keyOf(r.row, keyIndexes, r.partition)
    out[key] ??= []
    out[key].push({ change: r.change, row: r.row })
  }
  return out
}

/** Expected changes (in order) grouped by key, as changesByKey returns them. */
export function expectedByKey(
  changes: readonly (Change & { readonly partition?: string })[],
  keyIndexes: readonly number[],
): Record<string, Change[]> {
  const out: Record<string, Change[]> = {}
  for (const c of changes) {
    const key = keyOf(c.row, keyIndexes, c.partition ?? null)
    out[key] ??= []
    out[key].push({ change: c.change, row: c.row })
  }
  return out
}

/** The whole log read by a client equals the expected changes, key by key and in order. */
export function expectChanges(
  records: readonly LogRecordOut[],
  expected: readonly (Change & { readonly partition?: string })[],
  keyIndexes: readonly number[],
): void {
  expect(changesByKey(records, keyIndexes)).toEqual(expectedByKey(expected, keyIndexes))
  expect(records).toHaveLength(expected.length)
}
