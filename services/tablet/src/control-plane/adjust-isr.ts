import { type Catalog, writeIsrAsLeader } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import { isMetaStoreConflict } from '@sluice/core/metastore'
import type { AdjustIsrResult, IsrProposal } from '../replica/replica-types.js'

/** Read-and-write rounds against concurrent writers of the same bucket item. */
const ADJUST_ISR_ATTEMPTS_MAX = 8

/**
 * A leader's ISR change in the catalog: read the bucket item; when it no longer names this leader
 * at this leader epoch, the leader was deposed; when its bucket epoch is not the one the change
 * was based on, someone else (the coordinator) changed the ISR meanwhile and the stored state wins;
 * otherwise write the new ISR conditioned on leader, leader epoch and the version read. A lost
 * condition means the item changed between the read and the write: read it again.
 */
export async function adjustIsrInCatalog(catalog: Catalog, proposal: IsrProposal): Promise<AdjustIsrResult> {
  const ref = {
    tableId: proposal.tableBucket.tableId,
    partitionId: proposal.tableBucket.partitionId ?? null,
    bucket: proposal.tableBucket.bucket,
  }
  for (let attempt = 1; attempt <= ADJUST_ISR_ATTEMPTS_MAX; attempt++) {
    const record = await catalog.getBucket(ref)
    if (record === undefined) {
      throw new FlussError(
        'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION',
        `bucket ${ref.bucket} of table ${ref.tableId} (partition ${ref.partitionId}) does not exist`,
      )
    }
    const stored = record.leaderAndIsr
    if (stored.leader !== proposal.leader || stored.leaderEpoch !== proposal.leaderEpoch) {
      return { kind: 'deposed', leaderAndIsr: stored }
    }
    if (stored.bucketEpoch !== proposal.bucketEpoch) return { kind: 'stale', leaderAndIsr: stored }
    if (sameMembers(stored.isr, proposal.isr)) return { kind: 'committed', leaderAndIsr: stored }
    try {
      const written = await writeIsrAsLeader(catalog, record, proposal.isr)
      return { kind: 'committed', leaderAndIsr: written.leaderAndIsr }
    } catch (e) {
      if (!isMetaStoreConflict(e)) throw e
    }
  }
  throw new FlussError(
    'METASTORE_CONFLICT',
    `the ISR of bucket ${ref.bucket} of table ${ref.tableId} kept changing while it was written`,
  )
}

function sameMembers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every(id => b.includes(id))
}
