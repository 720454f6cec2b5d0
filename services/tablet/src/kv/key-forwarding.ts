import {
  KV_BATCH_HEADER_SIZE,
  KV_RECORD_COUNT_OFFSET,
  KV_RECORD_LENGTH_SIZE,
  type KvRecord,
  KvRecordBatch,
  KvRecordBatchBuilder,
  NO_BATCH_SEQUENCE,
  NO_WRITER_ID,
  readUnsignedVarInt,
} from '@sluice/core/kvbatch'
import { type TableBucket, tableBucket } from '@sluice/core/metadata'
import { varIntSize } from '@sluice/core/row'
import { type KeyRouter, misroutedKeyError, misroutedKeys } from './key-routing.js'

/** What a forwarded PUT_KV keeps of the request. */
export interface ForwardedPut {
  readonly acks: number
  readonly timeoutMs: number
  readonly targetColumns: readonly number[]
  readonly aggMode?: number | null
}

/** What a forwarded LOOKUP keeps of the request. */
export interface ForwardedLookup {
  readonly insertIfNotExists?: boolean | null
  readonly acks?: number | null
  readonly timeoutMs?: number | null
}

/**
 * Serves keys in the bucket they belong to, through that bucket's leader (this server or another):
 * each method sends one request for one bucket and throws its error. The tablet server implements it.
 */
export interface KeyForwarder {
  putKv(target: TableBucket, records: Buffer, request: ForwardedPut): Promise<void>
  lookup(target: TableBucket, keys: readonly Buffer[], request: ForwardedLookup): Promise<(Buffer | null)[]>
  prefixLookup(target: TableBucket, prefixes: readonly Buffer[]): Promise<Buffer[][]>
}

/** How a bucket's keys are checked: the table's key router (none: keys are not checked) and the forwarder. */
export interface KeyRouting {
  /** Which bucket each key belongs to; undefined: keys are not checked. */
  readonly router: KeyRouter | undefined
  /** Serves keys in their own bucket; undefined: misrouted keys are refused (MISROUTED_KEY). */
  readonly forwarder: KeyForwarder | undefined
}

/**
 * PUT_KV of one bucket: records whose key belongs to another bucket are put there first (a batch
 * per bucket, without the writer's id: its sequence numbers are this bucket's); the returned batch
 * holds this bucket's own records with the original writer id and sequence (possibly none of them,
 * so that the writer's sequence stays unbroken). The same bytes when every key belongs here. With
 * no forwarder, a misrouted key refuses the batch whole (MISROUTED_KEY).
 */
export async function routePut(
  routing: KeyRouting,
  bucket: TableBucket,
  records: Buffer,
  request: ForwardedPut,
): Promise<Buffer> {
  const { router, forwarder } = routing
  if (router === undefined) return records
  // One hash per key over views of the batch; records are only regrouped when a key belongs
  // elsewhere. A malformed batch is left to the put, which refuses it with its own error.
  const first = firstMisroutedKey(records, router, bucket.bucket)
  if (first === undefined) return records
  if (forwarder === undefined) {
    throw misroutedKeyError(bucket, first, router.bucketOfKey(first), 'PUT_KV')
  }
  const batch = KvRecordBatch.from(records)
  const own: KvRecord[] = []
  const others = new Map<number, KvRecord[]>()
  for (const record of batch.records()) {
    const canonical = router.bucketOfKey(record.key)
    const list = canonical === bucket.bucket ? own : others.get(canonical)
    if (list !== undefined) list.push(record)
    else others.set(canonical, [record])
  }
  await Promise.all(
    [...others].map(([target, list]) =>
      forwarder.putKv(
        tableBucket(bucket.tableId, target, bucket.partitionId),
        buildBatch(batch, list, NO_WRITER_ID, NO_BATCH_SEQUENCE),
        request,
      ),
    ),
  )
  return buildBatch(batch, own, batch.writerId, batch.batchSequence)
}

function buildBatch(
  like: KvRecordBatch,
  records: readonly KvRecord[],
  writerId: bigint,
  batchSequence: number,
): Buffer {
  const builder = new KvRecordBatchBuilder({ schemaId: like.schemaId, writeLimitBytes: like.sizeInBytes })
  for (const r of records) builder.append(r.key, r.row)
  builder.setWriterState(writerId, batchSequence)
  return Buffer.from(builder.build())
}

/**
 * LOOKUP (or PREFIX_LOOKUP) of one bucket: keys that belong here are read by `local`, the others
 * in their own bucket through the forwarder, and the answers come back in key order. With no
 * forwarder, a misrouted key refuses the request for this bucket (MISROUTED_KEY).
 */
export async function routeReads<T>(
  routing: KeyRouting,
  bucket: TableBucket,
  keys: readonly Buffer[],
  kind: 'LOOKUP' | 'PREFIX_LOOKUP',
  local: (keys: readonly Buffer[]) => Promise<T[]>,
  remote: (forwarder: KeyForwarder, target: TableBucket, keys: readonly Buffer[]) => Promise<T[]>,
): Promise<T[]> {
  const { router, forwarder } = routing
  if (router === undefined) return local(keys)
  const bucketOf = kind === 'LOOKUP' ? router.bucketOfKey : router.bucketOfPrefix
  const misrouted = misroutedKeys(bucketOf, bucket.bucket, keys)
  if (misrouted === undefined) return local(keys)
  if (forwarder === undefined) {
    const [[expected, [first]]] = misrouted
    throw misroutedKeyError(bucket, keys[first], expected, kind)
  }
  const elsewhere = new Set([...misrouted.values()].flat())
  const ownIndexes = keys.flatMap((_, i) => (elsewhere.has(i) ? [] : [i]))
  const groups: [TableBucket | undefined, number[]][] = [
    [undefined, ownIndexes],
    ...[...misrouted].map(([b, idx]): [TableBucket, number[]] => [
      tableBucket(bucket.tableId, b, bucket.partitionId),
      idx,
    ]),
  ]
  const out = new Array<T>(keys.length)
  await Promise.all(
    groups.map(async ([target, indexes]) => {
      if (indexes.length === 0) return
      const subset = indexes.map(i => keys[i])
      const answers = target === undefined ? await local(subset) : await remote(forwarder, target, subset)
      indexes.forEach((k, j) => {
        out[k] = answers[j]
      })
    }),
  )
  return out
}

/** The first key of a KV batch that does not belong to `bucket`; undefined when all do (or it is malformed). */
function firstMisroutedKey(buf: Buffer, router: KeyRouter, bucket: number): Buffer | undefined {
  if (buf.length < KV_BATCH_HEADER_SIZE) return undefined
  const count = buf.readInt32LE(KV_RECORD_COUNT_OFFSET)
  let pos = KV_BATCH_HEADER_SIZE
  for (let i = 0; i < count; i++) {
    if (buf.length - pos < KV_RECORD_LENGTH_SIZE) return undefined
    const body = pos + KV_RECORD_LENGTH_SIZE
    const end = body + buf.readInt32LE(pos)
    if (end <= body || end > buf.length) return undefined
    const keyLength = readUnsignedVarInt(buf, body, end)
    const keyStart = body + varIntSize(keyLength)
    if (keyStart + keyLength > end) return undefined
    // Hashed where it lies: a view per key would cost more than the hash.
    if (router.bucketOfKeyIn(buf, keyStart, keyStart + keyLength) !== bucket)
      return buf.subarray(keyStart, keyStart + keyLength)
    pos = end
  }
  return undefined
}
