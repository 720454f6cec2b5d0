import { describe, expect, it } from 'vitest'
import { allocateId } from '../allocate-id.js'
import { isMetaStoreConflict } from '../conflict.js'
import { COUNTERS } from '../keys.js'
import { uniquePk } from './helpers.js'
import type { MetaStoreRef } from './index.js'

const WRITERS = 16
const ATTEMPTS_PER_WRITER = 6

/** Linearizability of single-item conditional writes under concurrency. */
export function raceCases(ref: MetaStoreRef): void {
  describe('races', () => {
    it(`has exactly one winner per version among ${WRITERS} concurrent writers (no lost update)`, async () => {
      const pk = uniquePk('race')
      await ref.store.put(pk, 'COUNTER', { count: 0 }, { version: 'absent' })
      const wonVersions: number[] = []
      let losses = 0
      const writer = async () => {
        for (let i = 0; i < ATTEMPTS_PER_WRITER; i++) {
          const current = await ref.store.get(pk, 'COUNTER')
          if (current === undefined) throw new Error('counter vanished')
          const count = (current.value.count as number) + 1
          try {
            wonVersions.push(await ref.store.put(pk, 'COUNTER', { count }, { version: current.version }))
          } catch (e) {
            if (!isMetaStoreConflict(e)) throw e
            losses++
          }
        }
      }
      await Promise.all(Array.from({ length: WRITERS }, writer))
      const final = await ref.store.get(pk, 'COUNTER')
      expect(wonVersions.length + losses).toBe(WRITERS * ATTEMPTS_PER_WRITER)
      expect(wonVersions.length).toBeGreaterThan(0)
      expect(final?.value.count).toBe(wonVersions.length)
      expect(final?.version).toBe(wonVersions.length + 1)
      expect([...wonVersions].sort((a, b) => a - b)).toEqual(
        Array.from({ length: wonVersions.length }, (_, i) => i + 2),
      )
    })

    it('allocates distinct consecutive ids under concurrency', async () => {
      // The counter is cluster-wide: start from wherever earlier runs left it.
      const store = ref.store
      const first = await allocateId(store, COUNTERS.writerId, { maxAttempts: 200 })
      const ids = await Promise.all(
        Array.from({ length: 8 }, () => allocateId(store, COUNTERS.writerId, { maxAttempts: 200 })),
      )
      const block = await allocateId(store, COUNTERS.writerId, { count: 10 })
      const after = await allocateId(store, COUNTERS.writerId)
      expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => first + 1 + i))
      expect(block).toBe(first + 9)
      expect(after).toBe(first + 19)
    })
  })
}
