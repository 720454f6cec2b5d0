import { describe, expect, it } from 'vitest'
import type { BlobInfo, BlobStore } from '../blob-store.js'
import { bytesOf, expectFlussError, titled, uniquePrefix } from './helpers.js'
import type { BlobStoreRef } from './index.js'

async function drain(
  store: BlobStore,
  prefix: string,
  limit: number,
): Promise<{ items: BlobInfo[]; pages: number[] }> {
  const items: BlobInfo[] = []
  const pages: number[] = []
  let cursor: string | undefined
  for (let i = 0; i < 100; i++) {
    const page = await store.list(prefix, { limit, cursor })
    items.push(...page.items)
    pages.push(page.items.length)
    cursor = page.cursor
    if (cursor === undefined) return { items, pages }
  }
  throw new Error('list did not end within 100 pages')
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** Listing: every key under a prefix, nested or not, in byte order, paginated. */
export function listCases(ref: BlobStoreRef): void {
  describe('list', () => {
    it('lists nested keys in byte order across pages', async () => {
      const prefix = uniquePrefix('list')
      const rel = [
        ...Array.from({ length: 12 }, (_, i) => `remote-log/7/_/0/${String(i).padStart(20, '0')}.log`),
        ...Array.from({ length: 6 }, (_, i) => `remote-log/7/3/${i}/seg.index`),
        'a/b',
        'a/c/d/e/f',
        'a0',
        'b',
        'z',
        'kv-snapshots/7/_/0/5/shared/sst-1',
        'kv-snapshots/7/_/0/5/manifest',
      ]
      const keys = rel.map(r => prefix + r)
      await Promise.all(keys.map((k, i) => ref.store.put(k, bytesOf('x'.repeat(i)))))
      const all = await drain(ref.store, prefix, 10)
      expect(all.pages).toEqual([10, 10, 5])
      expect(all.items.map(i => i.key)).toEqual([...keys].sort(byteOrder))
      expect(all.items.find(i => i.key === keys[3])?.size).toBe(3)
      const deep = await drain(ref.store, `${prefix}remote-log/`, 4)
      expect(deep.items.map(i => i.key)).toEqual(keys.slice(0, 18).sort(byteOrder))
      expect(deep.pages).toEqual([4, 4, 4, 4, 2])
    })

    const orderGap = ref.gaps.listOrderBelowSlash
    it.skipIf(orderGap !== undefined)(
      titled("orders by bytes: '-' and '.' before '/'", orderGap),
      async () => {
        const prefix = uniquePrefix('order')
        const rel = ['a-b', 'a/b', 'a/b-c/d/e/f', 'a.x', 'a0', 'a/b.c']
        for (const r of rel) await ref.store.put(prefix + r, bytesOf(r))
        const all = await drain(ref.store, prefix, 2)
        expect(all.items.map(i => i.key.slice(prefix.length))).toEqual([
          'a-b',
          'a.x',
          'a/b',
          'a/b-c/d/e/f',
          'a/b.c',
          'a0',
        ])
      },
    )

    it('matches prefixes that end inside a name', async () => {
      const prefix = uniquePrefix('partial')
      for (const r of ['ab1', 'abc', 'ab/x', 'abd/y', 'b']) await ref.store.put(prefix + r, bytesOf(r))
      const page = await ref.store.list(`${prefix}ab`)
      expect(page.items.map(i => i.key.slice(prefix.length))).toEqual(['ab/x', 'ab1', 'abc', 'abd/y'])
      expect(page.cursor).toBeUndefined()
      expect((await ref.store.list(`${prefix}zzz`)).items).toEqual([])
    })

    it('ends without a cursor when the last page is exactly full', async () => {
      const prefix = uniquePrefix('exact')
      for (const r of ['1', '2', '3', '4']) await ref.store.put(prefix + r, bytesOf(r))
      const first = await ref.store.list(prefix, { limit: 2 })
      const second = await ref.store.list(prefix, { limit: 2, cursor: first.cursor })
      expect(second.items.map(i => i.key.slice(prefix.length))).toEqual(['3', '4'])
      expect(second.cursor).toBeUndefined()
    })

    it('refuses bad limits and foreign cursors', async () => {
      const prefix = uniquePrefix('badlist')
      for (const r of ['1', '2']) await ref.store.put(prefix + r, bytesOf(r))
      const { cursor } = await ref.store.list(prefix, { limit: 1 })
      expect(cursor).toBeDefined()
      await expectFlussError(() => ref.store.list(prefix, { limit: 0 }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.list(prefix, { limit: 1001 }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.list(`${prefix}other/`, { cursor }), 'INVALID_REQUEST')
      await expectFlussError(() => ref.store.list(prefix, { cursor: '%%%' }), 'INVALID_REQUEST')
    })
  })
}
