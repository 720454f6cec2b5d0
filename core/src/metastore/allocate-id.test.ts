import { describe, expect, it } from 'vitest'
import type { FlussError } from '../errors/index.js'
import { allocateId } from './allocate-id.js'
import { COUNTERS, counterKey } from './keys.js'
import { MemoryMetaStore } from './memory-metastore.js'
import type { ItemValue, MetaStore, WriteCondition } from './metastore.js'

/** A store whose puts always lose, as if another writer won every race. */
class AlwaysLosing extends MemoryMetaStore {
  override async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    const current = await this.get(pk, sk)
    await super.put(
      pk,
      sk,
      { next: ((current?.value.next as number | undefined) ?? 0) + 100 },
      { version: current?.version ?? 'absent' },
    )
    return super.put(pk, sk, value, condition)
  }
}

async function error(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected a failure')
    },
    e => e as FlussError,
  )
}

describe('allocateId', () => {
  it('starts at 0 and hands out blocks', async () => {
    const store = new MemoryMetaStore()
    expect(await allocateId(store, COUNTERS.tableId)).toBe(0)
    expect(await allocateId(store, COUNTERS.tableId, { count: 5 })).toBe(1)
    expect(await allocateId(store, COUNTERS.tableId)).toBe(6)
    expect(await allocateId(store, COUNTERS.partitionId)).toBe(0)
    const { pk, sk } = counterKey(COUNTERS.tableId)
    expect(await store.get(pk, sk)).toMatchObject({ version: 3, value: { next: 7 } })
  })

  it('gives up after maxAttempts lost races with a retriable METASTORE_CONFLICT', async () => {
    const e = await error(allocateId(new AlwaysLosing(), COUNTERS.writerId, { maxAttempts: 3, backoffMs: 0 }))
    expect(e.errorName).toBe('METASTORE_CONFLICT')
    expect(e.retriable).toBe(true)
    expect(e.message).toContain('3 races')
  })

  it('refuses bad arguments and a corrupt counter', async () => {
    const store: MetaStore = new MemoryMetaStore()
    expect((await error(allocateId(store, COUNTERS.tableId, { count: 0 }))).errorName).toBe('INVALID_REQUEST')
    expect((await error(allocateId(store, COUNTERS.tableId, { maxAttempts: 0 }))).errorName).toBe(
      'INVALID_REQUEST',
    )
    const { pk, sk } = counterKey(COUNTERS.tableId)
    await store.put(pk, sk, { next: 'seven' }, { version: 'absent' })
    expect((await error(allocateId(store, COUNTERS.tableId))).errorName).toBe('CORRUPT_MESSAGE')
  })
})
