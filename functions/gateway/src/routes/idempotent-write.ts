import { createHash } from 'node:crypto'
import type { WriteResult } from '../backend/gateway-backend.js'
import { errorCodeOf } from '../errors/envelope.js'
import { type FailedRow, GatewayError, invalidArgument } from '../errors/gateway-error.js'
import type { IdempotencyStore } from '../http/idempotency-store.js'
import type { RouteInput, RouteOutput } from '../http/pipeline.js'

const KEY = /^[\x21-\x7e]{1,255}$/

/** Writes the rows at the given indexes (of the request's rows); failure indexes are into that subset. */
export type WriteAttempt = (indexes: readonly number[]) => Promise<WriteResult>

/**
 * Runs a validated write of `rowCount` rows. Success is `200 {"row_count": n}`. If the cluster
 * acknowledges only some rows, the error envelope lists `acknowledged_rows` and `failed_rows`.
 *
 * With an `Idempotency-Key`, the outcome is kept: a retry with the same key and request replays a
 * success without writing, writes only the rows not yet acknowledged after a partial failure, and
 * is refused (409) while the first attempt is still running or when the request differs.
 */
export async function runIdempotentWrite(
  store: IdempotencyStore,
  input: RouteInput,
  rowCount: number,
  write: WriteAttempt,
): Promise<RouteOutput> {
  const header = input.c.req.header('idempotency-key')
  const all = Array.from({ length: rowCount }, (_, i) => i)
  // Each branch starts the attempt and hands it to a function that awaits it: this one then ends,
  // so it does not hold `write` (and the rows it closes over) while the cluster answers.
  if (header === undefined) return answerOf(start(write, all), all)
  if (!KEY.test(header)) throw invalidArgument('Idempotency-Key must be 1 to 255 visible ASCII characters.')
  const key = `${input.ctx.principal.name}\u0000${header}`
  const fingerprint = fingerprintOf(input)
  const entry = store.get(key)
  if (entry !== undefined && entry.fingerprint !== fingerprint) {
    throw new GatewayError('failed_precondition', 'This Idempotency-Key was used for a different request.')
  }
  if (entry?.state === 'in_progress') {
    throw new GatewayError(
      'failed_precondition',
      'A request with this Idempotency-Key is still in progress; retry later.',
    )
  }
  if (entry?.state === 'done' && entry.response !== undefined) {
    return { ...entry.response, headers: { 'idempotent-replayed': 'true' } }
  }
  const acknowledged = new Set(entry?.acknowledgedRows ?? [])
  const pending = all.filter(i => !acknowledged.has(i))
  store.put(key, { fingerprint, state: 'in_progress', acknowledgedRows: [...acknowledged] })
  return recordOutcome(store, { key, fingerprint, all, pending, acknowledged }, start(write, pending))
}

/** Runs an attempt; a synchronous throw becomes its rejection. */
function start(write: WriteAttempt, indexes: readonly number[]): Promise<WriteResult> {
  try {
    return write(indexes)
  } catch (e) {
    return Promise.reject(e)
  }
}

/** The answer to a write of every row without an Idempotency-Key. */
async function answerOf(attempt: Promise<WriteResult>, all: readonly number[]): Promise<RouteOutput> {
  const result = await attempt
  // Every row acknowledged (the usual answer): no bookkeeping of indexes needed.
  if (result.failures.length === 0) return { status: 200, body: { row_count: all.length } }
  return outcome(all, new Set(), result)
}

interface KeyedAttempt {
  readonly key: string
  readonly fingerprint: string
  readonly all: readonly number[]
  readonly pending: readonly number[]
  /** Rows acknowledged by earlier attempts; this attempt's are added. */
  readonly acknowledged: Set<number>
}

/** Awaits an attempt under an Idempotency-Key and keeps its outcome. */
async function recordOutcome(
  store: IdempotencyStore,
  a: KeyedAttempt,
  attempt: Promise<WriteResult>,
): Promise<RouteOutput> {
  const { key, fingerprint, acknowledged } = a
  let result: WriteResult
  try {
    result = await attempt
  } catch (e) {
    if (acknowledged.size === 0) store.delete(key)
    else store.put(key, { fingerprint, state: 'partial', acknowledgedRows: [...acknowledged] })
    throw e
  }
  try {
    const out = outcome(a.pending, acknowledged, result)
    store.put(key, { fingerprint, state: 'done', acknowledgedRows: [...a.all], response: out })
    return out
  } catch (e) {
    store.put(key, {
      fingerprint,
      state: 'partial',
      acknowledgedRows: [...acknowledged].sort((x, y) => x - y),
    })
    throw e
  }
}

/** Adds the rows of `pending` that did not fail to `acknowledged`; throws the partial-write error if any failed. */
function outcome(pending: readonly number[], acknowledged: Set<number>, result: WriteResult): RouteOutput {
  const failed: FailedRow[] = []
  const failedIndexes = new Set<number>()
  let first: ReturnType<typeof errorCodeOf> | undefined
  for (const f of result.failures) {
    const index = pending[f.index]
    const code = errorCodeOf(f.error)
    first ??= code
    failedIndexes.add(index)
    failed.push({ index, code: code.code, message: code.message })
  }
  for (const i of pending) if (!failedIndexes.has(i)) acknowledged.add(i)
  const total = acknowledged.size + failedIndexes.size
  if (first === undefined) return { status: 200, body: { row_count: total } }
  failed.sort((a, b) => a.index - b.index)
  const acknowledgedRows = [...acknowledged].sort((a, b) => a - b)
  throw GatewayError.withStatus(
    first.code,
    first.status,
    `${failed.length} of ${total} rows were not written (first: ${first.message}); ${acknowledgedRows.length} were acknowledged.`,
    {
      partialWrite: { acknowledgedRows, failedRows: failed },
      ...(first.retryAfterSec === undefined ? {} : { retryAfterSec: first.retryAfterSec }),
    },
  )
}

function fingerprintOf(input: RouteInput): string {
  const req = input.c.req
  return createHash('sha256')
    .update(
      `${req.method} ${new URL(req.url).pathname}${new URL(req.url).search}\n${req.header('content-type') ?? ''}\n`,
    )
    .update(input.bytes)
    .digest('base64url')
}
