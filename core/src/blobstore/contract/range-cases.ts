import { describe, expect, it } from 'vitest'
import type { ByteRange } from '../blob-store.js'
import { bytesOf, expectFlussError, hex, streamBytes, textOf, titled, uniquePrefix } from './helpers.js'
import type { BlobStoreRef } from './index.js'

const TEXT = 'hello world' // 11 bytes

/** Byte-range reads: [start, end), open ends, suffixes, clamping, empty ranges. */
export function rangeCases(ref: BlobStoreRef): void {
  describe('byte ranges', () => {
    const cases: Array<[ByteRange, string]> = [
      [{ start: 6, end: 11 }, 'world'],
      [{ start: 0, end: 5 }, 'hello'],
      [{ start: 4, end: 5 }, 'o'],
      [{ start: 0, end: 1 }, 'h'],
      [{ start: 10, end: 11 }, 'd'],
      [{ start: 6 }, 'world'],
      [{ start: 6, end: 500 }, 'world'],
      [{ suffixBytes: 5 }, 'world'],
      [{ suffixBytes: 11 }, TEXT],
      [{ suffixBytes: 50 }, TEXT],
      [{ suffixBytes: 0 }, ''],
      [{ start: 3, end: 3 }, ''],
      [{ start: 11 }, ''],
      [{ start: 20, end: 30 }, ''],
    ]

    it('reads each range as bytes and as a stream', async () => {
      const key = `${uniquePrefix('range')}obj`
      await ref.store.put(key, bytesOf(TEXT))
      const got: Array<string | undefined> = []
      const streamed: Array<string | undefined> = []
      for (const [range] of cases) {
        got.push(textOf(await ref.store.get(key, { range })))
        streamed.push(textOf(await streamBytes(await ref.store.getStream(key, { range }))))
      }
      expect(got).toEqual(cases.map(([, text]) => text))
      expect(streamed).toEqual(cases.map(([, text]) => text))
    })

    const emptyGap = ref.gaps.rangeOnEmptyObject
    it.skipIf(emptyGap !== undefined)(
      titled('reads ranges of an empty object as empty', emptyGap),
      async () => {
        const key = `${uniquePrefix('range-empty')}obj`
        await ref.store.put(key, new Uint8Array(0))
        expect(hex(await ref.store.get(key, { range: { start: 0, end: 10 } }))).toBe('')
        expect(hex(await ref.store.get(key, { range: { suffixBytes: 4 } }))).toBe('')
      },
    )

    it('refuses malformed ranges', async () => {
      const key = `${uniquePrefix('range-bad')}obj`
      await ref.store.put(key, bytesOf(TEXT))
      const bad: ByteRange[] = [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }, { suffixBytes: -2 }]
      for (const range of bad) await expectFlussError(() => ref.store.get(key, { range }), 'INVALID_REQUEST')
    })
  })
}
