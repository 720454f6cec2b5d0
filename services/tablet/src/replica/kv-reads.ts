import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { type ForwardedLookup, type KeyForwarder, routeReads } from '../kv/index.js'
import type { Replica } from './replica.js'
import type { BucketResult } from './replica-types.js'
import { awaitReplication, checkRequiredAcks, type ReplicationWaitContext } from './required-acks.js'

/** One bucket's keys (or prefixes) of a LOOKUP or PREFIX_LOOKUP request. */
export interface KeysOfBucket {
  readonly tableBucket: TableBucket
  readonly keys: readonly Buffer[]
}

/** A LIMIT_SCAN's answer: a primary-key bucket's values in key order, or a log bucket's batches. */
export type LimitScanResult =
  | { readonly isLogTable: false; readonly values: readonly Buffer[] }
  | { readonly isLogTable: true; readonly records: Buffer }

/**
 * LOOKUP: each bucket's keys read on its leader replica (buckets in parallel), from RocksDB (absent
 * = not found); with insert-if-not-exists the missing keys are put first (waiting for acks like a
 * put). Keys that belong to another bucket are read there through `forwarder`, answered in key order.
 */
export function lookups(
  context: ReplicationWaitContext,
  params: ForwardedLookup,
  buckets: readonly KeysOfBucket[],
  forwarder: KeyForwarder | undefined,
): Promise<BucketResult<(Buffer | null)[]>[]> {
  const pending = new Array<Promise<BucketResult<(Buffer | null)[]>>>(buckets.length)
  // Every bucket's read goes out before the first is awaited: the reads run in parallel.
  for (let i = 0; i < buckets.length; i++) {
    const { tableBucket, keys } = buckets[i]
    pending[i] = bucketResult(tableBucket, async () => {
      const replica = context.getReplicaOrException(tableBucket)
      const kv = await replica.awaitLeaderKv()
      const lookupHere = async (own: readonly Buffer[]) => {
        const found = await kv.lookup(own)
        return params.insertIfNotExists === true ? insertMissing(context, replica, params, own, found) : found
      }
      const routing = { router: replica.keyRouter, forwarder }
      return routeReads(routing, tableBucket, keys, 'LOOKUP', lookupHere, (f, target, k) =>
        f.lookup(target, k, params),
      )
    })
  }
  return Promise.all(pending)
}

/** PREFIX_LOOKUP: for each prefix (an encoded bucket key) the values of its keys, in key order. */
export function prefixLookups(
  context: ReplicationWaitContext,
  buckets: readonly KeysOfBucket[],
  forwarder: KeyForwarder | undefined,
): Promise<BucketResult<Buffer[][]>[]> {
  return Promise.all(
    buckets.map(({ tableBucket, keys }) =>
      bucketResult(tableBucket, async () => {
        const replica = context.getReplicaOrException(tableBucket)
        const kv = await replica.awaitLeaderKv(
          `Try to do prefix lookup on a non primary key table: ${replica.name}`,
        )
        const lookupHere = async (prefixes: readonly Buffer[]) => {
          const lists: Buffer[][] = []
          for (const prefix of prefixes) lists.push(await kv.prefixLookup(prefix))
          return lists
        }
        const routing = { router: replica.keyRouter, forwarder }
        return routeReads(routing, tableBucket, keys, 'PREFIX_LOOKUP', lookupHere, (f, target, k) =>
          f.prefixLookup(target, k),
        )
      }),
    ),
  )
}

/**
 * LIMIT_SCAN: on a primary-key bucket the first `limit` values in key order; on a log bucket the
 * batches holding the latest `limit` offsets below the high watermark (Fluss reads from
 * max(log start, HW - limit)), at most `maxBytes` of them (whole batches, at least one).
 */
export async function limitScan(
  context: ReplicationWaitContext,
  bucket: TableBucket,
  limit: number,
  maxBytes: number,
): Promise<LimitScanResult> {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new FlussError('INVALID_REQUEST', `Invalid limit ${limit} for limit scan, expected >= 0`)
  }
  const replica = context.getReplicaOrException(bucket)
  if (replica.tableInfo.hasPrimaryKey) {
    const kv = await replica.awaitLeaderKv()
    return { isLogTable: false, values: await kv.limitScan(limit) }
  }
  if (replica.isLeader) await replica.whenLeaderReady().catch(() => undefined)
  replica.checkLeader()
  const log = replica.logTablet
  const read = await log.read({
    fetchOffset: Math.max(log.logStartOffset, log.highWatermark - limit),
    maxBytes,
    isolation: 'HIGH_WATERMARK',
    minOneMessage: true,
  })
  return { isLogTable: true, records: read.records }
}

/** Puts the missing keys (waiting for acks like a put), then reads them again. */
async function insertMissing(
  context: ReplicationWaitContext,
  replica: Replica,
  params: ForwardedLookup,
  keys: readonly Buffer[],
  values: (Buffer | null)[],
): Promise<(Buffer | null)[]> {
  const missing = keys.filter((_, i) => values[i] === null)
  if (missing.length === 0) return values
  const acks = params.acks ?? -1
  checkRequiredAcks(acks)
  const put = await replica.insertIfNotExists(missing, acks)
  if (acks === -1) {
    const [result] = await awaitReplication(context, params.timeoutMs ?? 0, [
      { tableBucket: replica.tableBucket, baseOffset: put.firstOffset, writeEndOffset: put.lastOffset + 1 },
    ])
    if (result.error !== undefined) throw result.error
  }
  const inserted = await (await replica.awaitLeaderKv()).lookup(missing)
  let next = 0
  return values.map(v => (v === null ? inserted[next++] : v))
}

async function bucketResult<T>(tableBucket: TableBucket, read: () => Promise<T>): Promise<BucketResult<T>> {
  try {
    return { tableBucket, value: await read() }
  } catch (e) {
    return { tableBucket, error: toFlussError(e) }
  }
}
