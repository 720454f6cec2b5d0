import { MemoryMetaStore } from '@sluice/core/metastore'
import { describe, expect, it } from 'vitest'
import { EMPTY_LAKE_ITEM, readLakeItem } from './round/lake-item.js'
import { claimTable, updateClaimed } from './round/tiering-claim.js'
import { lakeSnapshotResponse, statusOf, tieringStatus } from './status.js'

describe('tiering status', () => {
  it('reports offsets, lag per bucket and partition, the claim and the last round', async () => {
    const metaStore = new MemoryMetaStore()
    const claim = await claimTable(metaStore, 7, 'round-1', 1000, 60_000)
    const during = await tieringStatus(metaStore, 7, { nowMs: 2000 })
    expect(during).toMatchObject({ tableId: 7, tieringEpoch: 1, tieringBy: 'round-1', buckets: [] })
    await updateClaimed(metaStore, claim, item => ({
      ...item,
      claimExpiresAtMs: 0,
      tieredOffsets: [
        { partitionId: 3, partitionName: '2024', bucket: 1, offset: 40 },
        { partitionId: 3, partitionName: '2024', bucket: 0, offset: 10 },
      ],
      remoteEndOffsets: [{ partitionId: 3, bucket: 0, offset: 12 }],
      lastSnapshotId: 2n ** 52n + 1n,
      lastSnapshotTimeMs: 3000,
      lastRoundEndMs: 3500,
    }))
    const logEnds = new Map([
      ['3:0', 15],
      ['3:1', 40],
      ['4:0', 5],
    ])
    const status = await tieringStatus(metaStore, 7, { nowMs: 4000, logEndOffsets: logEnds })
    expect(status.tieringBy).toBeNull()
    expect(status.totalLag).toBe(10)
    expect(status.buckets).toEqual([
      {
        partitionId: 3,
        partitionName: '2024',
        bucket: 0,
        tieredOffset: 10,
        remoteEndOffset: 12,
        logEndOffset: 15,
        lag: 5,
      },
      { partitionId: 3, partitionName: '2024', bucket: 1, tieredOffset: 40, logEndOffset: 40, lag: 0 },
      { partitionId: 4, bucket: 0, tieredOffset: 0, logEndOffset: 5, lag: 5 },
    ])
    const { item } = await readLakeItem(metaStore, 7)
    expect(lakeSnapshotResponse(7, item)).toEqual({
      tableId: 7,
      snapshotId: 2 ** 52 + 1,
      bucketSnapshots: [
        { bucketId: 1, logOffset: 40, partitionId: 3, partitionName: '2024' },
        { bucketId: 0, logOffset: 10, partitionId: 3, partitionName: '2024' },
      ],
    })
  })

  it('a second claim is fenced while the first holds; no snapshot yet is LAKE_SNAPSHOT_NOT_EXIST', async () => {
    const metaStore = new MemoryMetaStore()
    const first = await claimTable(metaStore, 1, 'a', 1000, 10_000)
    await expect(claimTable(metaStore, 1, 'b', 2000, 10_000)).rejects.toMatchObject({
      errorName: 'FENCED_TIERING_EPOCH_EXCEPTION',
    })
    const second = await claimTable(metaStore, 1, 'b', 20_000, 10_000)
    expect(second.epoch).toBe(2)
    await expect(updateClaimed(metaStore, first, i => i)).rejects.toMatchObject({
      errorName: 'FENCED_TIERING_EPOCH_EXCEPTION',
    })
    expect(() => lakeSnapshotResponse(1, EMPTY_LAKE_ITEM)).toThrow(
      expect.objectContaining({ errorName: 'LAKE_SNAPSHOT_NOT_EXIST' }),
    )
    expect(statusOf(1, EMPTY_LAKE_ITEM, 0).buckets).toEqual([])
  })

  it('refuses a corrupt LAKE item with CORRUPT_MESSAGE', async () => {
    const metaStore = new MemoryMetaStore()
    await metaStore.put(
      'TABLE#00000000000000000009',
      'LAKE',
      { format: 1, tieringEpoch: 'x' },
      { version: 'absent' },
    )
    await expect(tieringStatus(metaStore, 9)).rejects.toMatchObject({ errorName: 'CORRUPT_MESSAGE' })
  })
})
