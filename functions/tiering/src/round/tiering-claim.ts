import { FlussError } from '@sluice/core/errors'
import { isMetaStoreConflict, lakeKey, type MetaStore } from '@sluice/core/metastore'
import { type LakeItem, lakeItemValue, readLakeItem, type StoredLakeItem } from './lake-item.js'

/**
 * The tiering claim of a table: one round at a time holds a table, fenced by the tiering epoch in
 * its LAKE item. Every write a round makes to the item is conditioned on the version it read and
 * on its epoch, so a round whose claim expired (and was taken over) can change nothing.
 */

/** A claimed table: the epoch this round holds and the item version its writes are conditioned on. */
export interface TieringClaim {
  readonly tableId: number
  readonly epoch: number
  readonly ownerId: string
  readonly stored: StoredLakeItem
}

function fenced(tableId: number, detail: string): FlussError {
  return new FlussError('FENCED_TIERING_EPOCH_EXCEPTION', `tiering of table ${tableId}: ${detail}`)
}

/**
 * Claims a table for one round: a new tiering epoch, conditioned on the item version read.
 * FENCED_TIERING_EPOCH_EXCEPTION when an unexpired claim of another round holds the table or a
 * concurrent claim won the write.
 */
export async function claimTable(
  metaStore: MetaStore,
  tableId: number,
  ownerId: string,
  nowMs: number,
  claimTtlMs: number,
): Promise<TieringClaim> {
  const current = await readLakeItem(metaStore, tableId)
  const { item } = current
  if (item.claimExpiresAtMs > nowMs) {
    throw fenced(
      tableId,
      `claimed by ${item.ownerId} (epoch ${item.tieringEpoch}) until ${item.claimExpiresAtMs}`,
    )
  }
  const claimed: LakeItem = {
    ...item,
    tieringEpoch: item.tieringEpoch + 1,
    ownerId,
    claimExpiresAtMs: nowMs + claimTtlMs,
    lastRoundStartMs: nowMs,
  }
  const version = await writeLakeItem(metaStore, tableId, current.version, claimed, item.tieringEpoch)
  return { tableId, epoch: claimed.tieringEpoch, ownerId, stored: { item: claimed, version } }
}

/**
 * Writes the item of a claimed table (offsets, status, release), conditioned on the claim's
 * version and epoch; FENCED_TIERING_EPOCH_EXCEPTION when another round claimed the table since
 * (this round's claim had expired). Returns the claim with the new version.
 */
export async function updateClaimed(
  metaStore: MetaStore,
  claim: TieringClaim,
  update: (item: LakeItem) => LakeItem,
): Promise<TieringClaim> {
  const next = { ...update(claim.stored.item), tieringEpoch: claim.epoch }
  const version = await writeLakeItem(metaStore, claim.tableId, claim.stored.version, next, claim.epoch)
  return { ...claim, stored: { item: next, version } }
}

async function writeLakeItem(
  metaStore: MetaStore,
  tableId: number,
  version: number | 'absent',
  item: LakeItem,
  expectedEpoch: number,
): Promise<number> {
  const { pk, sk } = lakeKey(tableId)
  const condition =
    version === 'absent'
      ? { version }
      : { version, attributes: [{ field: 'tieringEpoch', op: '=' as const, value: expectedEpoch }] }
  try {
    return await metaStore.put(pk, sk, lakeItemValue(item), condition)
  } catch (e) {
    if (isMetaStoreConflict(e)) throw fenced(tableId, `epoch ${expectedEpoch} lost to a newer round`)
    throw e
  }
}
