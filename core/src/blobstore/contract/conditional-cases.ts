import { describe, expect, it } from 'vitest'
import { bytesOf, chunked, expectFlussError, randomData, textOf, titled, uniquePrefix } from './helpers.js'
import type { BlobStoreRef } from './index.js'

const WRITERS = 8

/** `ifNoneMatch: '*'`: create-only writes, where the backend enforces them. */
export function conditionalCases(ref: BlobStoreRef): void {
  describe('conditional put', () => {
    it('reports whether conditional puts are enforced', () => {
      expect(ref.store.capabilities.conditionalPut).toBe(ref.conditionalPutSkipReason === undefined)
    })

    it.skipIf(ref.conditionalPutSkipReason !== undefined)(
      titled('creates once and refuses the second create', ref.conditionalPutSkipReason),
      async () => {
        const key = `${uniquePrefix('ifnm')}v1.metadata.json`
        await ref.store.put(key, bytesOf('first'), { ifNoneMatch: '*' })
        await expectFlussError(
          () => ref.store.put(key, bytesOf('second'), { ifNoneMatch: '*' }),
          'LAKE_COMMIT_CONFLICT',
        )
        await expectFlussError(
          () =>
            ref.store.upload(key, chunked(randomData(2 * ref.partBytes + 1), 65_536), {
              ifNoneMatch: '*',
              partBytes: ref.partBytes,
            }),
          'LAKE_COMMIT_CONFLICT',
        )
        expect(textOf(await ref.store.get(key))).toBe('first')
      },
    )

    it.skipIf(ref.conditionalPutSkipReason !== undefined)(
      titled(`lets exactly one of ${WRITERS} concurrent creates win`, ref.conditionalPutSkipReason),
      async () => {
        const key = `${uniquePrefix('ifnm-race')}commit`
        const results = await Promise.allSettled(
          Array.from({ length: WRITERS }, (_, i) =>
            ref.store.put(key, bytesOf(`writer-${i}`), { ifNoneMatch: '*' }),
          ),
        )
        const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []))
        expect(winners).toHaveLength(1)
        for (const r of results) {
          if (r.status === 'rejected')
            expect((r.reason as { errorName?: string }).errorName).toBe('LAKE_COMMIT_CONFLICT')
        }
        expect(textOf(await ref.store.get(key))).toBe(`writer-${winners[0]}`)
      },
    )

    it.skipIf(ref.conditionalPutSkipReason === undefined)(
      'refuses conditional puts it cannot enforce, writing nothing',
      async () => {
        const key = `${uniquePrefix('ifnm-refused')}commit`
        await expectFlussError(
          () => ref.store.put(key, bytesOf('x'), { ifNoneMatch: '*' }),
          'INVALID_CONFIG_EXCEPTION',
        )
        expect(await ref.store.head(key)).toBeUndefined()
      },
    )
  })
}
