import { beforeEach, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { bucketKey, MemoryMetaStore } from '../metastore/index.js'
import {
  decodeBucket,
  initialLeaderAndIsr,
  isFencedByNewerCoordinator,
  withNewIsr,
  withNewLeader,
} from './bucket-item.js'
import { updateBucketAsCoordinator, writeIsrAsLeader } from './bucket-writes.js'
import { Catalog } from './catalog.js'
import { writeNewBuckets } from './table-ddl.js'

const ref = { tableId: 5, partitionId: null, bucket: 0 }
let store: MemoryMetaStore
let catalog: Catalog

async function rejects(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection')
    },
    e => e,
  )
}

beforeEach(async () => {
  store = new MemoryMetaStore()
  catalog = new Catalog(store)
  await writeNewBuckets(catalog, 5, null, [[1, 2, 3]], 1)
})

describe('LeaderAndIsr transitions', () => {
  it('bumps both epochs on a leader change and only the bucket epoch on an ISR change', () => {
    const initial = initialLeaderAndIsr([1, 2, 3], 1)
    const elected = withNewLeader(initial, 2, [2, 3], 4)
    expect(elected).toEqual({
      leader: 2,
      leaderEpoch: 1,
      isr: [2, 3],
      replicas: [1, 2, 3],
      bucketEpoch: 1,
      coordinatorEpoch: 4,
    })
    expect(withNewIsr(elected, [2])).toEqual({ ...elected, isr: [2], bucketEpoch: 2 })
    expect(() => initialLeaderAndIsr([1, 1], 1)).toThrow(FlussError)
  })

  it('refuses a stored bucket whose ISR or leader is not among its replicas', async () => {
    const { pk, sk } = bucketKey(ref)
    const value = {
      format: 1,
      leader: 9,
      leaderEpoch: 0,
      isr: [1],
      replicas: [1],
      bucketEpoch: 0,
      coordinatorEpoch: 1,
    }
    await store.put(pk, sk, value, { version: 1 })
    const item = await store.get(pk, sk)
    expect(() => decodeBucket(item as NonNullable<typeof item>)).toThrow(/leader 9 is not a replica/)
  })
})

describe('updateBucketAsCoordinator', () => {
  it('writes the change with the coordinator epoch and reports it', async () => {
    const result = await updateBucketAsCoordinator(catalog, ref, 2, l => withNewLeader(l, 2, l.isr, 2))
    expect(result?.changed).toBe(true)
    expect((await catalog.getBucket(ref))?.leaderAndIsr).toMatchObject({
      leader: 2,
      leaderEpoch: 1,
      coordinatorEpoch: 2,
    })
    expect(await updateBucketAsCoordinator(catalog, { ...ref, bucket: 9 }, 2, l => l)).toBeUndefined()
  })

  it('is fenced once a newer coordinator has written the bucket', async () => {
    await updateBucketAsCoordinator(catalog, ref, 3, l => withNewLeader(l, 2, l.isr, 3))
    const e = await rejects(updateBucketAsCoordinator(catalog, ref, 2, l => withNewLeader(l, 3, l.isr, 2)))
    expect((e as FlussError).errorName).toBe('METASTORE_CONFLICT')
    expect(isFencedByNewerCoordinator(e, 2)).toBe(true)
    expect((await catalog.getBucket(ref))?.leaderAndIsr.leader).toBe(2)
  })

  it('recomputes after losing a race with an ISR writer', async () => {
    const read = await catalog.getBucket(ref)
    let calls = 0
    let racing: Promise<unknown> | undefined
    const result = await updateBucketAsCoordinator(catalog, ref, 1, l => {
      calls++
      // The leader shrinks the ISR between the coordinator's read and its write.
      if (calls === 1) racing = writeIsrAsLeader(catalog, read as NonNullable<typeof read>, [1, 2])
      return withNewLeader(l, 2, l.isr, 1)
    })
    await racing
    expect(calls).toBe(2)
    expect(result?.record.leaderAndIsr).toMatchObject({
      leader: 2,
      isr: [1, 2],
      leaderEpoch: 1,
      bucketEpoch: 2,
    })
  })
})

describe('writeIsrAsLeader', () => {
  it('fails for a deposed leader', async () => {
    const asLeader = await catalog.getBucket(ref)
    await updateBucketAsCoordinator(catalog, ref, 1, l => withNewLeader(l, 2, l.isr, 1))
    const e = await rejects(writeIsrAsLeader(catalog, asLeader as NonNullable<typeof asLeader>, [1]))
    expect((e as FlussError).errorName).toBe('METASTORE_CONFLICT')
  })
})
