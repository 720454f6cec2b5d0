import { describe, expect, it } from 'vitest'
import { isMetaStoreConflict } from '../conflict.js'
import type { AttributeCondition, MetaStore } from '../metastore.js'
import { expectConflict, uniquePk } from './helpers.js'
import type { MetaStoreRef } from './index.js'

const STORED = { coordinatorEpoch: 7, leader: 'b', fenced: false, note: null, isr: [1, 2] }

/** Rewrites the item with the same value under one extra condition; tells whether it held. */
async function holds(store: MetaStore, pk: string, c: AttributeCondition): Promise<boolean> {
  const current = await store.get(pk, 'A')
  try {
    await store.put(pk, 'A', STORED, { version: current?.version ?? 'absent', attributes: [c] })
    return true
  } catch (e) {
    if (isMetaStoreConflict(e)) return false
    throw e
  }
}

/** Conditions on top-level fields, on top of the version (epoch fencing). */
export function conditionCases(ref: MetaStoreRef): void {
  describe('attribute conditions', () => {
    const cases: Array<[AttributeCondition, boolean]> = [
      [{ field: 'coordinatorEpoch', op: '<', value: 7 }, false],
      [{ field: 'coordinatorEpoch', op: '<', value: 8 }, true],
      [{ field: 'coordinatorEpoch', op: '<=', value: 7 }, true],
      [{ field: 'coordinatorEpoch', op: '<=', value: 6 }, false],
      [{ field: 'coordinatorEpoch', op: '=', value: 7 }, true],
      [{ field: 'coordinatorEpoch', op: '=', value: 7.5 }, false],
      [{ field: 'coordinatorEpoch', op: '>=', value: 7 }, true],
      [{ field: 'coordinatorEpoch', op: '>=', value: 8 }, false],
      [{ field: 'coordinatorEpoch', op: '>', value: 6 }, true],
      [{ field: 'coordinatorEpoch', op: '>', value: -100 }, true],
      [{ field: 'coordinatorEpoch', op: '>', value: 7 }, false],
      [{ field: 'coordinatorEpoch', op: '=', value: '7' }, false],
      [{ field: 'leader', op: '=', value: 'b' }, true],
      [{ field: 'leader', op: '<', value: 'c' }, true],
      [{ field: 'leader', op: '>', value: 'ab' }, true],
      [{ field: 'leader', op: '>', value: 'b' }, false],
      [{ field: 'fenced', op: '=', value: false }, true],
      [{ field: 'fenced', op: '=', value: true }, false],
      [{ field: 'missing', op: '<=', value: 100 }, false],
      [{ field: 'missing', op: '=', value: false }, false],
      [{ field: 'note', op: '=', value: false }, false],
      [{ field: 'note', op: 'absent' }, false],
      [{ field: 'missing', op: 'absent' }, true],
      [{ field: 'coordinatorEpoch', op: 'absent' }, false],
      [{ field: 'isr', op: 'absent' }, false],
    ]

    it('evaluates each op against the stored field', async () => {
      const pk = uniquePk('attr')
      await ref.store.put(pk, 'A', STORED, { version: 'absent' })
      const results = []
      for (const [c, expected] of cases)
        results.push({ ...c, holds: await holds(ref.store, pk, c), expected })
      expect(results.filter(r => r.holds !== r.expected)).toEqual([])
    })

    it('requires every condition and the version together', async () => {
      const pk = uniquePk('and')
      await ref.store.put(pk, 'A', STORED, { version: 'absent' })
      const epochOk = { field: 'coordinatorEpoch', op: '<=', value: 7 } as const
      const leaderWrong = { field: 'leader', op: '=', value: 'a' } as const
      const e = await expectConflict(
        ref.store.put(pk, 'A', { x: 1 }, { version: 1, attributes: [epochOk, leaderWrong] }),
      )
      expect(e.current?.value).toEqual(STORED)
      await expectConflict(ref.store.put(pk, 'A', { x: 1 }, { version: 2, attributes: [epochOk] }))
      expect(await ref.store.put(pk, 'A', { x: 1 }, { version: 1, attributes: [epochOk] })).toBe(2)
    })

    it('fails comparisons on an absent item but lets field absence hold', async () => {
      const pk = uniquePk('absent')
      await expectConflict(
        ref.store.put(pk, 'A', STORED, {
          version: 'absent',
          attributes: [{ field: 'coordinatorEpoch', op: '<=', value: 9 }],
        }),
      )
      expect(
        await ref.store.put(pk, 'A', STORED, {
          version: 'absent',
          attributes: [{ field: 'coordinatorEpoch', op: 'absent' }],
        }),
      ).toBe(1)
    })

    it('guards deletes with attribute conditions', async () => {
      const pk = uniquePk('delattr')
      await ref.store.put(pk, 'A', STORED, { version: 'absent' })
      await expectConflict(
        ref.store.delete(pk, 'A', {
          version: 1,
          attributes: [{ field: 'coordinatorEpoch', op: '>', value: 7 }],
        }),
      )
      expect(await ref.store.get(pk, 'A')).toBeDefined()
      await ref.store.delete(pk, 'A', {
        version: 1,
        attributes: [{ field: 'coordinatorEpoch', op: '=', value: 7 }],
      })
      expect(await ref.store.get(pk, 'A')).toBeUndefined()
    })
  })
}
