import { expect } from 'vitest'
import type { VerifyResult } from './drivers/driver.js'

export const BUCKETS = 4
/** Two of the 25 columns: a variable-width one in the middle and the last one (nanosecond LTZ). */
export const PROJECTION = ['c_string', 'c_timestamp_ltz_9']

/** Full read: every row once, exact values, dense offsets from 0 in every bucket; then the projection. */
export function expectExact(result: VerifyResult, rows: number): void {
  expect(result.mismatches).toEqual([])
  expect(result.ok).toBe(true)
  expect(result.rows).toBe(rows)
  expect(result.projectedRows).toBe(rows)
  const buckets = Object.values(result.buckets)
  expect(buckets).toHaveLength(BUCKETS)
  for (const b of buckets) {
    expect(b.earliest).toBe(0)
    expect(b.records).toBe(b.latest - b.earliest)
  }
  expect(buckets.reduce((a, b) => a + b.records, 0)).toBe(rows)
}
