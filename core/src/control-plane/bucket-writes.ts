import { assert, FlussError } from '../errors/index.js'
import { type BucketRef, bucketKey, isMetaStoreConflict } from '../metastore/index.js'
import {
  type BucketRecord,
  bucketItemValue,
  coordinatorBucketCondition,
  decodeBucket,
  isFencedByNewerCoordinator,
  type LeaderAndIsr,
  leaderBucketCondition,
  withNewIsr,
} from './bucket-item.js'
import type { Catalog } from './catalog.js'

/** Read-modify-write rounds of one bucket item against concurrent ISR writers. */
const BUCKET_WRITE_ATTEMPTS_MAX = 8

/**
 * The coordinator's change of one bucket: read the item, let `change` compute the next
 * LeaderAndIsr (undefined: nothing to do), write it conditioned on the version read and on no newer
 * coordinator having written it; a lost race with an ISR writer re-reads and recomputes. A newer
 * coordinator's epoch on the item rethrows the METASTORE_CONFLICT at once (the caller is deposed
 * and must step down: see isFencedByNewerCoordinator). Returns the stored record, or undefined
 * when the bucket does not exist.
 */
export async function updateBucketAsCoordinator(
  catalog: Catalog,
  ref: BucketRef,
  coordinatorEpoch: number,
  change: (current: LeaderAndIsr) => LeaderAndIsr | undefined,
): Promise<{ record: BucketRecord; changed: boolean } | undefined> {
  let record = await catalog.getBucket(ref)
  for (let attempt = 1; attempt <= BUCKET_WRITE_ATTEMPTS_MAX; attempt++) {
    if (record === undefined) return undefined
    const next = change(record.leaderAndIsr)
    if (next === undefined) return { record, changed: false }
    const { pk, sk } = bucketKey(ref)
    try {
      const version = await catalog.store.put(
        pk,
        sk,
        bucketItemValue(next),
        coordinatorBucketCondition(record.version, coordinatorEpoch),
      )
      return { record: { ref: record.ref, leaderAndIsr: next, version }, changed: true }
    } catch (e) {
      if (!isMetaStoreConflict(e) || isFencedByNewerCoordinator(e, coordinatorEpoch)) throw e
      record = e.current === undefined ? undefined : decodeBucket(e.current)
    }
  }
  throw new FlussError(
    'METASTORE_CONFLICT',
    `bucket ${bucketKey(ref).sk} of table ${ref.tableId} kept changing`,
  )
}

/**
 * A bucket leader's ISR change (shrink or expand), conditioned on the item still naming it leader at
 * the same leader epoch. A METASTORE_CONFLICT means the leader was deposed (or the ISR changed under
 * it): re-read with Catalog.getBucket and follow the stored state.
 */
export async function writeIsrAsLeader(
  catalog: Catalog,
  record: BucketRecord,
  isr: readonly number[],
): Promise<BucketRecord> {
  const current = record.leaderAndIsr
  assert(current.leader !== null, 'only a bucket with a leader changes its ISR')
  assert(
    isr.length > 0 && isr.every(id => current.replicas.includes(id)),
    `isr [${isr}] must be non-empty replicas`,
  )
  const next = withNewIsr(current, isr)
  const { pk, sk } = bucketKey(record.ref)
  const condition = leaderBucketCondition(record.version, current.leader, current.leaderEpoch)
  const version = await catalog.store.put(pk, sk, bucketItemValue(next), condition)
  return { ref: record.ref, leaderAndIsr: next, version }
}
