import { MemoryLogRecords, wholeBatchesPrefixSize } from '@sluice/core/record'
import type { LogReadResult } from '../log/index.js'
import { projectLogRecords, type RowTypeLookup } from './log-projection.js'
import type { ResolvedProjection } from './projection-schema.js'

/** Reads whole stored batches from `fetchOffset` (a replica's or a remote segment's read). */
export type StoredRead = (
  fetchOffset: number,
  maxBytes: number,
  minOneMessage: boolean,
) => Promise<LogReadResult>

export interface ProjectedReadParams {
  readonly fetchOffset: number
  /** Limit on the projected bytes returned. */
  readonly maxBytes: number
  /** Return the first projected batch even when it exceeds `maxBytes`. */
  readonly minOneMessage: boolean
  readonly projection: ResolvedProjection
}

/** Stored bytes read per round, at most this many times the projected budget left... */
const STORED_READ_FACTOR = 8
/** ...and never more than this (the stored bytes are held in memory while projected). */
const STORED_READ_BYTES_MAX = 32 * 1024 * 1024
/** Rounds of one projected read (each reads more stored batches while the budget is not spent). */
const ROUNDS_MAX = 16

/**
 * A projected read whose byte limit applies to the projected batches, as Fluss's projected log
 * reads do: stored batches are read in rounds, projected, and whole projected batches are kept
 * until `maxBytes` is reached (the first one regardless with `minOneMessage`). A narrow projection
 * of a wide table therefore fills the budget instead of returning a small share of it.
 */
export async function readProjected(
  read: StoredRead,
  rowTypeOf: RowTypeLookup,
  params: ProjectedReadParams,
): Promise<LogReadResult> {
  const parts: Buffer[] = []
  let total = 0
  let offset = params.fetchOffset
  let last: LogReadResult | undefined
  for (let round = 0; round < ROUNDS_MAX; round++) {
    const left = params.maxBytes - total
    if (left <= 0 && !(params.minOneMessage && parts.length === 0)) break
    const storedBytes = Math.min(STORED_READ_BYTES_MAX, Math.max(left, 1) * STORED_READ_FACTOR)
    const result = await read(offset, storedBytes, round > 0 || params.minOneMessage)
    last = result
    if (result.records.length === 0) break
    const projected = await projectLogRecords(result.records, rowTypeOf, params.projection)
    const keep = wholeBatchesPrefixSize(projected, left, params.minOneMessage && parts.length === 0)
    if (keep > 0) {
      const kept = projected.subarray(0, keep)
      parts.push(kept)
      total += keep
      offset = nextOffsetAfter(kept)
    }
    if (keep < projected.length || offset >= result.highWatermark) break
  }
  const records = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, total)
  if (last === undefined) return read(offset, 0, false).then(r => ({ ...r, records }))
  return { ...last, records }
}

function nextOffsetAfter(records: Buffer): number {
  let next = -1
  for (const batch of new MemoryLogRecords(records).batches()) next = batch.nextOffset
  return next
}
