import { describe, expect, it } from 'vitest'
import type { MetaStore, QueryOptions, VersionedItem } from '../metastore.js'
import { expectFlussError, uniquePk } from './helpers.js'
import type { MetaStoreRef } from './index.js'

/** Follows cursors to the end; returns every item and the page sizes. */
async function drain(
  store: MetaStore,
  pk: string,
  options: QueryOptions,
): Promise<{ items: VersionedItem[]; pages: number[] }> {
  const items: VersionedItem[] = []
  const pages: number[] = []
  let cursor: string | undefined
  for (let i = 0; i < 100; i++) {
    const page = await store.query(pk, { ...options, cursor })
    items.push(...page.items)
    pages.push(page.items.length)
    cursor = page.cursor
    if (cursor === undefined) return { items, pages }
  }
  throw new Error('query did not end within 100 pages')
}

const pad = (n: number) => String(n).padStart(4, '0')

/** Prefix queries, sort order and pagination. */
export function queryCases(ref: MetaStoreRef): void {
  describe('query', () => {
    it('returns only the prefix, in sort-key byte order', async () => {
      const pk = uniquePk('order')
      const sks = ['B#0010', 'B#0002', 'A#0001', 'B#0001', 'B', 'BA#1', 'B#é', 'B#z', 'C#0001']
      for (const sk of sks) await ref.store.put(pk, sk, { label: sk }, { version: 'absent' })
      const page = await ref.store.query(pk, { skPrefix: 'B#' })
      expect(page.items.map(i => i.sk)).toEqual(['B#0001', 'B#0002', 'B#0010', 'B#z', 'B#é'])
      expect(page.cursor).toBeUndefined()
      expect(page.items[0]).toEqual({ pk, sk: 'B#0001', version: 1, value: { label: 'B#0001' } })
      const all = await ref.store.query(pk)
      expect(all.items.map(i => i.sk)).toEqual(
        [...sks].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      )
      expect((await ref.store.query(uniquePk('none'))).items).toEqual([])
    })

    it('paginates across pages without gaps or repeats', async () => {
      const pk = uniquePk('pages')
      const n = 25
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          ref.store.put(pk, `ITEM#${pad(i)}`, { i }, { version: 'absent' }),
        ),
      )
      await ref.store.put(pk, 'OTHER#1', { i: -1 }, { version: 'absent' })
      const forward = await drain(ref.store, pk, { skPrefix: 'ITEM#', limit: 10 })
      expect(forward.pages).toEqual([10, 10, 5])
      expect(forward.items.map(i => i.value.i)).toEqual(Array.from({ length: n }, (_, i) => i))
      const backward = await drain(ref.store, pk, { skPrefix: 'ITEM#', limit: 7, reverse: true })
      expect(backward.pages).toEqual([7, 7, 7, 4])
      expect(backward.items.map(i => i.value.i)).toEqual(Array.from({ length: n }, (_, i) => n - 1 - i))
    })

    it('ends without a cursor when the last page is exactly full', async () => {
      const pk = uniquePk('exact')
      for (let i = 0; i < 4; i++) await ref.store.put(pk, `S#${i}`, { i }, { version: 'absent' })
      const first = await ref.store.query(pk, { limit: 2 })
      expect(first.items.map(i => i.sk)).toEqual(['S#0', 'S#1'])
      const second = await ref.store.query(pk, { limit: 2, cursor: first.cursor })
      expect(second.items.map(i => i.sk)).toEqual(['S#2', 'S#3'])
      expect(second.cursor).toBeUndefined()
      const newest = await ref.store.query(pk, { limit: 1, reverse: true })
      expect(newest.items.map(i => i.sk)).toEqual(['S#3'])
    })

    it('refuses bad limits and cursors of other queries', async () => {
      const pk = uniquePk('badq')
      for (let i = 0; i < 3; i++) await ref.store.put(pk, `S#${i}`, { i }, { version: 'absent' })
      const { cursor } = await ref.store.query(pk, { limit: 1 })
      expect(cursor).toBeDefined()
      await expectFlussError(() => ref.store.query(pk, { limit: 0 }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.query(pk, { limit: 1001 }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.query(pk, { cursor: 'not-a-cursor' }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.query(pk, { cursor, skPrefix: 'X#' }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.query(uniquePk('other'), { cursor }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.query(pk, { cursor, reverse: true }), 'INVALID_REQUEST')
    })
  })
}
