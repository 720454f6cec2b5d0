import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { blobStoreContract } from './contract/index.js'
import { FsBlobStore } from './fs-blob-store.js'

let root: string
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sluice-fs-blob-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

blobStoreContract('FsBlobStore', () => new FsBlobStore(root), { partBytes: 64 * 1024 })

describe('FsBlobStore', () => {
  it('keeps objects at their key path and hides in-flight temp files', async () => {
    const store = new FsBlobStore(root)
    await store.put('layout/remote-log/1/_/0/00000000000000000000.log', new Uint8Array([1, 2]))
    expect([...(await readFile(join(root, 'layout/remote-log/1/_/0/00000000000000000000.log')))]).toEqual([
      1, 2,
    ])
    await mkdir(join(root, '.sluice-tmp'), { recursive: true })
    await writeFile(join(root, '.sluice-tmp', 'leftover'), 'x')
    const keys = (await store.list('')).items.map(i => i.key)
    expect(keys.some(k => k.startsWith('.sluice-tmp'))).toBe(false)
    expect(await readdir(join(root, '.sluice-tmp'))).toEqual(['leftover'])
  })

  it('refuses a key that is also the folder of other keys', async () => {
    const store = new FsBlobStore(root)
    await store.put('clash/a/b', new Uint8Array([1]))
    const asFile = await store.put('clash/a', new Uint8Array([1])).then(
      () => undefined,
      e => e as FlussError,
    )
    expect(asFile?.errorName).toBe('INVALID_REQUEST')
    const under = await store.put('clash/a/b/c', new Uint8Array([1])).then(
      () => undefined,
      e => e as FlussError,
    )
    expect(under?.errorName).toBe('INVALID_REQUEST')
    expect(await store.head('clash/a')).toBeUndefined()
    expect(await store.get('clash/a/b/c')).toBeUndefined()
  })

  it('needs an absolute root', () => {
    expect(() => new FsBlobStore('relative/dir')).toThrow(FlussError)
  })
})
