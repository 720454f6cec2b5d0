import {
  Catalog,
  updateBucketAsCoordinator,
  withNewIsr,
  withNewLeader,
  writeNewBuckets,
} from '@sluice/core/control-plane'
import { isFlussError } from '@sluice/core/errors'
import { type ItemValue, MemoryMetaStore, type WriteCondition } from '@sluice/core/metastore'
import { beforeEach, describe, expect, it } from 'vitest'
import { adjustIsrInCatalog } from './adjust-isr.js'

const ref = { tableId: 3, partitionId: null, bucket: 0 }
const proposal = (isr: number[], leaderEpoch = 0, bucketEpoch = 0) => ({
  tableBucket: { tableId: 3, bucket: 0 },
  leader: 1,
  leaderEpoch,
  bucketEpoch,
  isr,
})

/** A store that runs `beforeNextPut` once, right before the next conditional write. */
class RacingStore extends MemoryMetaStore {
  beforeNextPut: (() => Promise<void>) | undefined
  override async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    const race = this.beforeNextPut
    this.beforeNextPut = undefined
    if (race !== undefined) await race()
    return super.put(pk, sk, value, condition)
  }
}

let store: RacingStore
let catalog: Catalog

beforeEach(async () => {
  store = new RacingStore()
  catalog = new Catalog(store)
  await writeNewBuckets(catalog, 3, null, [[1, 2, 3]], 1)
})

describe('a leader writes its ISR change to the catalog', () => {
  it('commits when it still leads at its epoch and the bucket did not change', async () => {
    const result = await adjustIsrInCatalog(catalog, proposal([1, 2]))
    expect(result.kind).toBe('committed')
    expect(result.leaderAndIsr).toMatchObject({ leader: 1, leaderEpoch: 0, isr: [1, 2], bucketEpoch: 1 })
    expect((await catalog.getBucket(ref))?.leaderAndIsr.isr).toEqual([1, 2])
  })

  it('finds itself deposed after the coordinator elected another leader, and changes nothing', async () => {
    await updateBucketAsCoordinator(catalog, ref, 2, l => withNewLeader(l, 2, [2, 3], 2))
    const before = await catalog.getBucket(ref)
    const result = await adjustIsrInCatalog(catalog, proposal([1, 2]))
    expect(result).toEqual({ kind: 'deposed', leaderAndIsr: before?.leaderAndIsr })
    expect(await catalog.getBucket(ref)).toEqual(before)
  })

  it('yields to an ISR the coordinator wrote meanwhile (never overwrites a newer state)', async () => {
    store.beforeNextPut = async () => {
      await updateBucketAsCoordinator(catalog, ref, 1, l => withNewIsr(l, [1, 2], 1))
    }
    const result = await adjustIsrInCatalog(catalog, proposal([1, 3]))
    expect(result.kind).toBe('stale')
    expect(result.leaderAndIsr).toMatchObject({ isr: [1, 2], bucketEpoch: 1 })
    expect((await catalog.getBucket(ref))?.leaderAndIsr.isr).toEqual([1, 2])
  })

  it('refuses a change for a bucket that no longer exists', async () => {
    const missing = { ...proposal([1]), tableBucket: { tableId: 99, bucket: 0 } }
    const error = await adjustIsrInCatalog(catalog, missing).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(error, 'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION')).toBe(true)
  })

  it('a repeated change after a lost answer finds it committed', async () => {
    const first = await adjustIsrInCatalog(catalog, proposal([1, 2]))
    const again = await adjustIsrInCatalog(catalog, proposal([1, 2], 0, first.leaderAndIsr.bucketEpoch))
    expect(again).toEqual(first)
  })
})
