import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import {
  bytesOf,
  chunked,
  expectFlussError,
  failingStream,
  hex,
  randomData,
  sha256,
  streamBytes,
  textOf,
  uniquePrefix,
} from './helpers.js'
import type { BlobStoreRef } from './index.js'

/** Whole-object put/get/head/delete, uploads and key validation. */
export function objectCases(ref: BlobStoreRef): void {
  describe('objects', () => {
    it('puts, heads and gets an object, and overwrites it', async () => {
      const key = `${uniquePrefix('obj')}segment.log`
      const first = await ref.store.put(key, bytesOf('hello world'))
      expect(first).toMatchObject({ key, size: 11 })
      expect(await ref.store.head(key)).toEqual(first)
      expect(textOf(await ref.store.get(key))).toBe('hello world')
      const second = await ref.store.put(key, bytesOf('bye'))
      expect(second.size).toBe(3)
      expect(second.etag).not.toBe(first.etag)
      expect(await ref.store.head(key)).toEqual(second)
      expect(textOf(await ref.store.get(key))).toBe('bye')
      expect(textOf(await streamBytes(await ref.store.getStream(key)))).toBe('bye')
    })

    it('returns undefined for a missing object', async () => {
      const key = `${uniquePrefix('missing')}nope`
      expect(await ref.store.head(key)).toBeUndefined()
      expect(await ref.store.get(key)).toBeUndefined()
      expect(await ref.store.get(key, { range: { start: 0, end: 5 } })).toBeUndefined()
      expect(await ref.store.get(key, { range: { suffixBytes: 5 } })).toBeUndefined()
      expect(await ref.store.getStream(key)).toBeUndefined()
    })

    it('stores empty objects and keys with unusual characters', async () => {
      const prefix = uniquePrefix('chars')
      await ref.store.put(`${prefix}empty`, new Uint8Array(0))
      expect(await ref.store.head(`${prefix}empty`)).toMatchObject({ size: 0 })
      expect(hex(await ref.store.get(`${prefix}empty`))).toBe('')
      const odd = `${prefix}dir with space/ü ñ+%&=@,;~'!$()[].txt`
      await ref.store.put(odd, bytesOf('odd'))
      expect(textOf(await ref.store.get(odd))).toBe('odd')
      expect((await ref.store.list(prefix)).items.map(i => i.key)).toEqual([odd, `${prefix}empty`])
    })

    it('writes a stream body', async () => {
      const key = `${uniquePrefix('stream')}body`
      const data = randomData(300_000)
      const info = await ref.store.put(key, chunked(data, 7_777))
      expect(info.size).toBe(data.length)
      expect(sha256((await ref.store.get(key)) as Uint8Array)).toBe(sha256(data))
      await ref.store.put(`${key}.empty`, Readable.from([]))
      expect(await ref.store.head(`${key}.empty`)).toMatchObject({ size: 0 })
    })

    it('uploads a file and a stream in several parts', async () => {
      const prefix = uniquePrefix('upload')
      const data = randomData(2 * ref.partBytes + 1234)
      const dir = await mkdtemp(join(tmpdir(), 'sluice-blob-'))
      try {
        const file = join(dir, 'big.bin')
        await writeFile(file, data)
        const fromFile = await ref.store.upload(`${prefix}file`, file, { partBytes: ref.partBytes })
        expect(fromFile.size).toBe(data.length)
        const fromStream = await ref.store.upload(`${prefix}stream`, chunked(data, 1_000_003), {
          partBytes: ref.partBytes,
        })
        expect(fromStream.size).toBe(data.length)
        for (const key of [`${prefix}file`, `${prefix}stream`]) {
          expect((await ref.store.head(key))?.size).toBe(data.length)
          expect(sha256((await ref.store.get(key)) as Uint8Array)).toBe(sha256(data))
          // Across the first and second part boundaries.
          const p = ref.partBytes
          expect(hex(await ref.store.get(key, { range: { start: p - 10, end: p + 10 } }))).toBe(
            hex(data.subarray(p - 10, p + 10)),
          )
          expect(hex(await ref.store.get(key, { range: { start: 2 * p - 1, end: 2 * p + 1 } }))).toBe(
            hex(data.subarray(2 * p - 1, 2 * p + 1)),
          )
          expect(hex(await ref.store.get(key, { range: { suffixBytes: 1300 } }))).toBe(
            hex(data.subarray(data.length - 1300)),
          )
        }
        await expectFlussError(
          () => ref.store.upload(`${prefix}nofile`, join(dir, 'absent.bin')),
          'INVALID_REQUEST',
        )
        expect(await ref.store.head(`${prefix}nofile`)).toBeUndefined()
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    it('leaves the old object intact when the body stream fails', async () => {
      const key = `${uniquePrefix('torn')}obj`
      await ref.store.put(key, bytesOf('old'))
      await expectFlussError(() => ref.store.put(key, failingStream(1000)))
      await expectFlussError(() =>
        ref.store.upload(key, failingStream(ref.partBytes + 10), { partBytes: ref.partBytes }),
      )
      expect(textOf(await ref.store.get(key))).toBe('old')
      await expectFlussError(() => ref.store.put(`${key}.new`, failingStream(10)))
      expect(await ref.store.head(`${key}.new`)).toBeUndefined()
    })

    it('deletes existing and ignores missing keys', async () => {
      const prefix = uniquePrefix('del')
      await ref.store.put(`${prefix}a`, bytesOf('a'))
      await ref.store.put(`${prefix}b/c`, bytesOf('c'))
      await ref.store.delete([`${prefix}a`, `${prefix}b/c`, `${prefix}never`])
      await ref.store.delete([])
      expect(await ref.store.head(`${prefix}a`)).toBeUndefined()
      expect(await ref.store.get(`${prefix}b/c`)).toBeUndefined()
      expect((await ref.store.list(prefix)).items).toEqual([])
    })

    it('refuses bad keys whole', async () => {
      const long = `${'x'.repeat(1020)}/abcd`
      const bad = [
        '',
        '/abs',
        'a//b',
        'a/../b',
        '..',
        'a/./b',
        'a\\b',
        'trail/',
        'nul\0',
        '.sluice-tmp/x',
        long,
      ]
      for (const key of bad) {
        await expectFlussError(() => ref.store.put(key, bytesOf('x')), 'INVALID_REQUEST')
        await expectFlussError(() => ref.store.get(key), 'INVALID_REQUEST')
        await expectFlussError(() => ref.store.head(key), 'INVALID_REQUEST')
      }
      await expectFlussError(() => ref.store.delete(['ok', '../escape']), 'INVALID_REQUEST')
      await expectFlussError(
        () => ref.store.upload('k', Readable.from([]), { partBytes: 0 }),
        'INVALID_REQUEST',
      )
    })
  })
}
