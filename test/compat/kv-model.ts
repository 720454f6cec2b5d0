import type { Prng } from '../it/support/prng.js'
import type { Canonical, ColumnSpec } from './canonical.js'
import type { KvOp } from './drivers/driver.js'
import { rowOf } from './expect-log.js'

/**
 * A model of what Fluss 0.9.1 appends to one bucket's changelog for a sequence of PutKv batches
 * (`KvTablet.putAsLeader`): the changes of each batch at consecutive offsets, and a batch without
 * changes one empty batch that still takes an offset. Used to check our servers' log as the
 * official clients read it.
 */

/** The merge engines and images the model covers (deletes are IGNORE for first_row and versioned). */
export type ModelEngine = 'default' | 'default-wal' | 'first_row' | 'versioned'

export const MODEL_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'INT', nullable: false },
  { name: 'ver', type: 'BIGINT' },
  { name: 'v', type: 'STRING' },
]

export const ENGINE_PROPERTIES: Readonly<Record<ModelEngine, Readonly<Record<string, string>>>> = {
  default: {},
  'default-wal': { 'table.changelog.image': 'WAL' },
  first_row: { 'table.merge-engine': 'first_row' },
  versioned: { 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'ver' },
}

export interface ModelOp {
  readonly op: 'upsert' | 'delete'
  readonly id: number
  readonly ver: number | null
  readonly v: string
}

export interface ModelRecord {
  readonly offset: number
  readonly change: string
  readonly row: Canonical[]
}

const rowOfOp = (op: ModelOp): Canonical[] => rowOf(MODEL_COLUMNS, [op.id, op.ver, op.v])

/** The versioned engine's rule: the new row wins iff its version is >= the old (NULL is the smallest). */
function newerOrSame(next: ModelOp, old: ModelOp): boolean {
  if (next.ver === null) return old.ver === null
  return old.ver === null || next.ver >= old.ver
}

/** The changes one op makes to `state` (the stored row of each key). */
function apply(engine: ModelEngine, state: Map<number, ModelOp>, op: ModelOp): [string, ModelOp][] {
  const old = state.get(op.id)
  if (op.op === 'delete') {
    if (engine === 'first_row' || engine === 'versioned' || old === undefined) return []
    state.delete(op.id)
    return [['-D', old]]
  }
  if (engine === 'default-wal') {
    state.set(op.id, op)
    return [['+U', op]]
  }
  if (old === undefined) {
    state.set(op.id, op)
    return [['+I', op]]
  }
  if (engine === 'first_row' || (engine === 'versioned' && !newerOrSame(op, old))) return []
  state.set(op.id, op)
  return [
    ['-U', old],
    ['+U', op],
  ]
}

/**
 * The records of the batches in order, their offsets, the log end offset after each batch
 * (`batchEnds`, what a writer's acknowledgement reports) and after all of them.
 */
export function expectedLog(
  engine: ModelEngine,
  batches: readonly (readonly ModelOp[])[],
): { records: ModelRecord[]; logEndOffset: number; emptyBatches: number[]; batchEnds: number[] } {
  const state = new Map<number, ModelOp>()
  const records: ModelRecord[] = []
  const emptyBatches: number[] = []
  const batchEnds: number[] = []
  let offset = 0
  for (const batch of batches) {
    const changes = batch.flatMap(op => apply(engine, state, op))
    if (changes.length === 0) emptyBatches.push(offset++)
    for (const [change, op] of changes) records.push({ offset: offset++, change, row: rowOfOp(op) })
    batchEnds.push(offset)
  }
  return { records, logEndOffset: offset, emptyBatches, batchEnds }
}

/**
 * The PutKv batches a writer really sent for `batches` (each followed by a flush), from the log end
 * offset acknowledged for each op (`logEndOffsets`, in op order): a flush always ends a PutKv, but
 * a client may also send the first ops of a batch before the rest arrive (the Java client does once
 * `client.writer.batch-timeout` passes, e.g. when its thread stalls under load), so one batch may
 * become several. Consecutive ops of a batch acknowledged with the same log end offset went in one
 * PutKv. Throws when the offsets are not of that shape (not one per op, or not rising from one
 * PutKv to the next).
 */
export function sentBatches(
  batches: readonly (readonly ModelOp[])[],
  logEndOffsets: readonly number[],
): ModelOp[][] {
  const opCount = batches.reduce((n, b) => n + b.length, 0)
  if (logEndOffsets.length !== opCount)
    throw new Error(`${logEndOffsets.length} log end offsets for ${opCount} ops`)
  const sent: ModelOp[][] = []
  let i = 0
  let end = 0
  for (const batch of batches) {
    let current: ModelOp[] = []
    for (const op of batch) {
      const offset = logEndOffsets[i++]
      if (current.length === 0 || offset !== end) {
        if (offset <= end)
          throw new Error(`op ${i - 1} acknowledged at log end offset ${offset}, after ${end}`)
        if (current.length > 0) sent.push(current)
        current = []
        end = offset
      }
      current.push(op)
    }
    sent.push(current)
  }
  return sent
}

/** The batches as driver operations: a flush after each batch, so that no PutKv spans two. */
export function driverOps(batches: readonly (readonly ModelOp[])[]): KvOp[] {
  return batches.flatMap(batch => [
    ...batch.map(op => ({ op: op.op, row: rowOfOp(op) })),
    { op: 'flush' as const },
  ])
}

/**
 * Random batches over a few keys: upserts (with random versions, NULL included) and deletes,
 * so that inserts, updates, lower versions, deletes of absent keys and no-change batches mix.
 */
export function randomBatches(prng: Prng, count: number, keys = 4): ModelOp[][] {
  const random = () => prng.next()
  const pick = (n: number) => prng.int(0, n - 1)
  return Array.from({ length: count }, (_, b) =>
    Array.from({ length: 1 + pick(3) }, (_, i) => ({
      op: random() < 0.6 ? ('upsert' as const) : ('delete' as const),
      id: pick(keys),
      ver: random() < 0.2 ? null : pick(6),
      v: `b${b}.${i}`,
    })),
  )
}
