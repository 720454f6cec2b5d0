import { ArrowBatchWriter } from '@sluice/core/arrow'
import { buildLogBatch, V0_LAYOUT } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import type { Prng } from '../it/support/prng.js'
import { decodeSuccess, type Exchange, rawFrame, requestFrame } from '../it/support/raw-wire.js'

/** A valid V0 ARROW log batch of `rows` (append-only, no writer id). */
export function validBatch(rowType: RowType, schemaId: number, rows: readonly Row[]): Buffer {
  const arrow = new ArrowBatchWriter(rowType)
  for (const row of rows) arrow.addRow(row)
  return buildLogBatch({ schemaId, appendOnly: true, recordCount: rows.length, records: arrow.finish() })
}

/** A PRODUCE_LOG frame with one bucket's records. */
export function produceFrame(
  tableId: number,
  bucketId: number,
  records: Buffer,
  requestId: number,
  acks = 1,
): Buffer {
  return requestFrame(
    'PRODUCE_LOG',
    { acks, tableId, timeoutMs: 5000, bucketsReq: [{ bucketId, records }] },
    requestId,
  )
}

/** The batch with one byte of its CRC-covered range changed (so its stored CRC no longer matches). */
export function withWrongCrc(batch: Buffer, prng: Prng): Buffer {
  const copy = Buffer.from(batch)
  const at = prng.int(V0_LAYOUT.schemaIdOffset, copy.length - 1)
  copy[at] ^= prng.int(1, 255)
  return copy
}

/** The batch with its Length field off by a non-zero amount (the CRC still matches the bytes). */
export function withWrongLength(batch: Buffer, prng: Prng): Buffer {
  const copy = Buffer.from(batch)
  const delta = prng.int(1, 64) * (prng.next() < 0.5 ? -1 : 1)
  copy.writeInt32LE(copy.readInt32LE(8) + delta, 8)
  return copy
}

/** Random bytes: sometimes a bare stream, sometimes behind a plausible length prefix. */
export function randomFrame(prng: Prng): Buffer {
  const body = prng.bytes(prng.int(0, 600))
  if (prng.next() < 0.5) return body
  const head = Buffer.alloc(4)
  head.writeInt32BE(body.length, 0)
  return Buffer.concat([head, body])
}

/** A frame with a valid header for `apiKey` and a random body. */
export function garbageBodyFrame(apiKey: number, prng: Prng, requestId: number): Buffer {
  return rawFrame(apiKey, 0, requestId, prng.bytes(prng.int(0, 300)))
}

/**
 * Problems with the answers to a request that had to be rejected: a successful produce answer
 * with a bucket that reports no error (data may have been appended), unparseable frames, or no
 * answer and no close in time. Empty means the request was rejected cleanly.
 */
export function produceNotRejected(result: Exchange, what: string): string[] {
  const problems: string[] = []
  if (result.timedOut) problems.push(`${what}: neither an answer nor a close`)
  for (const r of result.responses) {
    if (r.kind === 'unparseable') problems.push(`${what}: unparseable answer (${r.detail})`)
    if (r.kind !== 'success') continue
    const decoded = (() => {
      try {
        return decodeSuccess('PRODUCE_LOG', r.body)
      } catch {
        return undefined
      }
    })()
    for (const b of decoded?.bucketsResp ?? []) {
      if (!b.errorCode) problems.push(`${what}: bucket ${b.bucketId} accepted at base offset ${b.baseOffset}`)
    }
  }
  return problems
}

/** The error codes in the answers (frame errors and per-bucket produce errors). */
export function errorCodes(result: Exchange): number[] {
  const codes: number[] = []
  for (const r of result.responses) {
    if (r.kind === 'error' || r.kind === 'server-failure') codes.push(r.error.code)
    if (r.kind === 'success') {
      try {
        for (const b of decodeSuccess('PRODUCE_LOG', r.body).bucketsResp) codes.push(b.errorCode ?? 0)
      } catch {
        codes.push(Number.NaN)
      }
    }
  }
  return codes
}
