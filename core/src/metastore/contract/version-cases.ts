import { describe, expect, it } from 'vitest'
import type { ItemValue } from '../metastore.js'
import { expectConflict, expectFlussError, uniquePk } from './helpers.js'
import type { MetaStoreRef } from './index.js'

/** Versioned put/get/delete and input validation. */
export function versionCases(ref: MetaStoreRef): void {
  describe('versions', () => {
    it('gives a new item version 1 and bumps it by one per put', async () => {
      const pk = uniquePk('ver')
      expect(await ref.store.put(pk, 'A', { n: 1 }, { version: 'absent' })).toBe(1)
      expect(await ref.store.get(pk, 'A')).toEqual({ pk, sk: 'A', version: 1, value: { n: 1 } })
      expect(await ref.store.put(pk, 'A', { n: 2, extra: 'x' }, { version: 1 })).toBe(2)
      expect(await ref.store.put(pk, 'A', { n: 3 }, { version: 2 })).toBe(3)
      // A put replaces the whole value: fields not written again are gone.
      expect(await ref.store.get(pk, 'A', { consistent: false })).toEqual({
        pk,
        sk: 'A',
        version: 3,
        value: { n: 3 },
      })
    })

    it('returns undefined for a missing item', async () => {
      expect(await ref.store.get(uniquePk('missing'), 'NOPE')).toBeUndefined()
    })

    it('refuses a create over an existing item and carries the current item', async () => {
      const pk = uniquePk('create')
      await ref.store.put(pk, 'A', { owner: 'first' }, { version: 'absent' })
      const e = await expectConflict(ref.store.put(pk, 'A', { owner: 'second' }, { version: 'absent' }))
      expect(e.current).toEqual({ pk, sk: 'A', version: 1, value: { owner: 'first' } })
      expect((await ref.store.get(pk, 'A'))?.value).toEqual({ owner: 'first' })
    })

    it('refuses a stale version and a version on a missing item', async () => {
      const pk = uniquePk('stale')
      await ref.store.put(pk, 'A', { n: 1 }, { version: 'absent' })
      await ref.store.put(pk, 'A', { n: 2 }, { version: 1 })
      const stale = await expectConflict(ref.store.put(pk, 'A', { n: 99 }, { version: 1 }))
      expect(stale.current?.version).toBe(2)
      expect(stale.current?.value).toEqual({ n: 2 })
      const missing = await expectConflict(ref.store.put(pk, 'B', { n: 1 }, { version: 1 }))
      expect(missing.current).toBeUndefined()
      expect(await ref.store.get(pk, 'B')).toBeUndefined()
    })

    it('deletes only on the expected version', async () => {
      const pk = uniquePk('del')
      await ref.store.put(pk, 'A', { n: 1 }, { version: 'absent' })
      await ref.store.put(pk, 'A', { n: 2 }, { version: 1 })
      const e = await expectConflict(ref.store.delete(pk, 'A', { version: 1 }))
      expect(e.current?.version).toBe(2)
      expect(await ref.store.get(pk, 'A')).toBeDefined()
      await ref.store.delete(pk, 'A', { version: 2 })
      expect(await ref.store.get(pk, 'A')).toBeUndefined()
      const gone = await expectConflict(ref.store.delete(pk, 'A', { version: 2 }))
      expect(gone.current).toBeUndefined()
      // 'absent' on delete holds only when there is nothing to delete.
      await ref.store.delete(pk, 'A', { version: 'absent' })
      await ref.store.put(pk, 'A', { n: 1 }, { version: 'absent' })
      await expectConflict(ref.store.delete(pk, 'A', { version: 'absent' }))
    })

    it('round-trips every JSON type', async () => {
      const pk = uniquePk('json')
      const value: ItemValue = {
        text: 'héllo ✓ 𝄞',
        empty: '',
        zero: 0,
        negative: -42,
        fraction: 0.125,
        tiny: -1.5e-7,
        precise: 0.1 + 0.2,
        big: Number.MAX_SAFE_INTEGER,
        int64AsString: '9223372036854775807',
        yes: true,
        no: false,
        nothing: null,
        list: [1, 'two', [3], { four: 4 }, null],
        emptyList: [],
        nested: { a: { b: { c: [true] } }, emptyMap: {} },
        'odd name.with#chars': 'ok',
      }
      await ref.store.put(pk, 'A', value, { version: 'absent' })
      expect((await ref.store.get(pk, 'A'))?.value).toEqual(value)
    })

    it('hands out copies: mutating a returned value changes nothing stored', async () => {
      const pk = uniquePk('copy')
      const value = { list: [1, 2] }
      await ref.store.put(pk, 'A', value, { version: 'absent' })
      value.list.push(3)
      const read = await ref.store.get(pk, 'A')
      expect(read).toBeDefined()
      ;(read?.value.list as number[] | undefined)?.push(4)
      expect((await ref.store.get(pk, 'A'))?.value).toEqual({ list: [1, 2] })
    })

    it('refuses bad input whole, writing nothing', async () => {
      const pk = uniquePk('bad')
      const bad: Array<[unknown, unknown]> = [
        [{ version: 1 }, { version: 'absent' }],
        [{ pk: 'x' }, { version: 'absent' }],
        [{ n: 2 ** 53 }, { version: 'absent' }],
        [{ n: Number.NaN }, { version: 'absent' }],
        [{ n: 1e-131 }, { version: 'absent' }],
        [{ n: 1n }, { version: 'absent' }],
        [{ d: new Date(0) }, { version: 'absent' }],
        [['not', 'an', 'object'], { version: 'absent' }],
        [{ n: 1 }, { version: 0 }],
        [{ n: 1 }, { version: 1.5 }],
        [{ n: 1 }, undefined],
        [{ n: 1 }, { version: 'absent', attributes: [{ field: 'x', op: '!=', value: 1 }] }],
        [{ n: 1 }, { version: 'absent', attributes: [{ field: 'x', op: '<', value: true }] }],
        [{ n: 1 }, { version: 'absent', attributes: [{ field: 'x', op: '=', value: null }] }],
        [{ n: 1 }, { version: 'absent', attributes: [{ field: 'x', op: 'absent', value: 1 }] }],
        [{ n: 1 }, { version: 'absent', attributes: [{ field: 'version', op: '=', value: 1 }] }],
      ]
      for (const [value, condition] of bad) {
        await expectFlussError(
          () => ref.store.put(pk, 'A', value as ItemValue, condition as never),
          'INVALID_REQUEST',
        )
      }
      await expectFlussError(() => ref.store.put('', 'A', { n: 1 }, { version: 'absent' }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.get(pk, ''), 'INVALID_REQUEST')
      await expectFlussError(
        () => ref.store.put(pk, 'A', { s: 'x'.repeat(400_000) }, { version: 'absent' }),
        'INVALID_REQUEST',
      )
      expect(await ref.store.get(pk, 'A')).toBeUndefined()
    })
  })
}
