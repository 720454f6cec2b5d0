import { FlussError } from '../errors/index.js'
import { FLUSS_MURMUR_SEED, flussMurmurHash, murmur3x86_32, murmurHashInt } from './murmur.js'

/**
 * Maps encoded bucket-key bytes to a bucket id in `[0, numBuckets)`: `bucketKey[start, end)`,
 * default all of it (a key inside a larger buffer is bucketed without a view of its own).
 */
export type BucketingFunction = (
  bucketKey: Uint8Array,
  numBuckets: number,
  start?: number,
  end?: number,
) => number

/** Values of the `table.datalake.format` table option. */
export type DataLakeFormat = 'paimon' | 'iceberg' | 'lance'

function checkArguments(keyLength: number, numBuckets: number): void {
  if (keyLength <= 0) throw new FlussError('INVALID_REQUEST', 'Assigned key must not be empty!')
  if (!Number.isInteger(numBuckets) || numBuckets <= 0 || numBuckets > 0x7fffffff) {
    throw new FlussError('INVALID_REQUEST', `The number of buckets must be a positive int, got ${numBuckets}`)
  }
}

/**
 * Fluss's default bucketing (`FlussBucketingFunction`, also used for Lance tables):
 * `murmurHashInt(flussMurmurHash(key, 42)) % numBuckets`.
 */
export function bucketForKey(
  bucketKey: Uint8Array,
  numBuckets: number,
  start = 0,
  end = bucketKey.length,
): number {
  checkArguments(end - start, numBuckets)
  return murmurHashInt(flussMurmurHash(bucketKey, FLUSS_MURMUR_SEED, start, end)) % numBuckets
}

/** Paimon's bucketing: `abs(flussMurmurHash(key, 42) % numBuckets)`. */
export function paimonBucketForKey(
  bucketKey: Uint8Array,
  numBuckets: number,
  start = 0,
  end = bucketKey.length,
): number {
  checkArguments(end - start, numBuckets)
  return Math.abs(flussMurmurHash(bucketKey, FLUSS_MURMUR_SEED, start, end) % numBuckets)
}

/** Iceberg's bucket transform: `(murmur3_32(key) & Integer.MAX_VALUE) % numBuckets`. */
export function icebergBucketForKey(
  bucketKey: Uint8Array,
  numBuckets: number,
  start = 0,
  end = bucketKey.length,
): number {
  checkArguments(end - start, numBuckets)
  return (murmur3x86_32(bucketKey, 0, start, end) & 0x7fffffff) % numBuckets
}

/** The bucketing function for a table: by its lake format, Fluss's own when there is none. */
export function bucketingFunction(lakeFormat?: DataLakeFormat | null): BucketingFunction {
  switch (lakeFormat ?? null) {
    case null:
    case 'lance':
      return bucketForKey
    case 'paimon':
      return paimonBucketForKey
    case 'iceberg':
      return icebergBucketForKey
    default:
      throw new FlussError('INVALID_CONFIG_EXCEPTION', `Unsupported lake format: ${lakeFormat}`)
  }
}
