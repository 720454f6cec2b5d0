import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucketToString } from '@sluice/core/metadata'
import { keyEncoderFor, primaryKeyDecoderOf, type Value } from '@sluice/core/row'

/**
 * Which bucket a key belongs to, as Fluss and its clients compute it: the table's bucketing
 * function over the encoded bucket key. A client that hashes differently (pyfluss 1.0.0 reads the
 * tail bytes of a key as unsigned, so INT ids >= 128 may land elsewhere) sends keys to the wrong
 * bucket; served there they would be missing from lookups by other clients and end up twice in the
 * table. The leader checks every key of PUT_KV, LOOKUP and PREFIX_LOOKUP with one hash each.
 */
export interface KeyRouter {
  /** The bucket of an encoded primary key (a KV key). */
  bucketOfKey(key: Uint8Array): number
  /** The bucket of the encoded primary key at `bytes[start, end)` (a key inside a KV batch), without a copy. */
  bucketOfKeyIn(bytes: Uint8Array, start: number, end: number): number
  /** The bucket of an encoded bucket key (a prefix lookup's prefix). */
  bucketOfPrefix(prefix: Uint8Array): number
}

export function keyRouter(table: TableInfo): KeyRouter {
  const bucketOfKeyIn = bucketOfEncoded(table, table.physicalPrimaryKeys)
  return {
    bucketOfKey: key => bucketOfKeyIn(key, 0, key.length),
    bucketOfKeyIn,
    // A prefix is encoded as the primary key's leading columns are (the bucket key columns); its
    // bucket comes from the bucket-key encoding, which differs for lake tables (Iceberg bytes).
    bucketOfPrefix: withoutRange(bucketOfEncoded(table, table.bucketKeys)),
  }
}

function withoutRange(bucketOf: BucketOfRange): (key: Uint8Array) => number {
  return key => bucketOf(key, 0, key.length)
}

/** The bucket of the encoded key at `bytes[start, end)`. */
type BucketOfRange = (bytes: Uint8Array, start: number, end: number) => number

/**
 * The bucket of a key of `keyNames` as the table encodes it in the KV store (or in a prefix): one
 * hash over the key's bytes where they are the bucket key's bytes, else decoded and re-encoded.
 */
function bucketOfEncoded(table: TableInfo, keyNames: readonly string[]): BucketOfRange {
  const encoders = keyEncoderFor(table, table.rowType, keyNames)
  const { bucketing } = encoders
  const numBuckets = table.numBuckets
  if (encoders.bucketKey === encoders.key)
    return (bytes, start, end) => bucketing(bytes, numBuckets, start, end)
  // The bucket key is part of the key (or encoded otherwise): decode, then re-encode it.
  const decoder = primaryKeyDecoderOf(table.rowType, keyNames, table.tableConfig, table.isDefaultBucketKey)
  const names = table.rowType.fields.map(f => f.name)
  const positions = keyNames.map(k => names.indexOf(k))
  const row: Value[] = new Array(names.length).fill(null)
  return (bytes, start, end) => {
    const key =
      start === 0 && end === bytes.length
        ? bytes
        : new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start)
    const values = decoder.decodeKey(key)
    for (let i = 0; i < positions.length; i++) row[positions[i]] = values[i]
    return bucketing(encoders.bucketKey.encodeKeyView(row), numBuckets)
  }
}

/**
 * The keys that do not belong to `bucket`, by the bucket they belong to (indexes into `keys`), or
 * undefined when every key belongs (the common case: nothing is allocated).
 */
export function misroutedKeys(
  bucketOf: (key: Uint8Array) => number,
  bucket: number,
  keys: readonly Uint8Array[],
): Map<number, number[]> | undefined {
  let misrouted: Map<number, number[]> | undefined
  for (let i = 0; i < keys.length; i++) {
    const canonical = bucketOf(keys[i])
    if (canonical === bucket) continue
    misrouted ??= new Map()
    const list = misrouted.get(canonical)
    if (list === undefined) misrouted.set(canonical, [i])
    else list.push(i)
  }
  return misrouted
}

/** The typed refusal of a batch holding a key of another bucket (when it cannot be served there). */
export function misroutedKeyError(
  bucket: TableBucket,
  key: Uint8Array,
  expectedBucket: number,
  api: string,
): FlussError {
  return new FlussError(
    'MISROUTED_KEY',
    `${api} to ${tableBucketToString(bucket)} holds key 0x${Buffer.from(key).toString('hex')}, which belongs to bucket ${expectedBucket} (the client computed another bucket); nothing of the request was applied`,
  )
}
