import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KvRowCache } from './kv-row-cache.js'
import { type KvWrite, RocksDbKv, SMALL_ROCKSDB_OPTIONS } from './rocksdb-kv.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const key = (i: number) => Buffer.from(`key-${String(i).padStart(6, '0')}`)
const value = (i: number, version = 0, size = 100) => Buffer.alloc(size, `${i}:${version};`)
const put = (i: number, version = 0): KvWrite => ({ key: key(i), value: { bytes: value(i, version) } })
const del = (i: number): KvWrite => ({ key: key(i), value: null })

async function openRocks(cache: KvRowCache | null): Promise<RocksDbKv> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-row-cache-'))
  const rocks = await RocksDbKv.open(dir, { ...SMALL_ROCKSDB_OPTIONS, rowCache: cache })
  cleanups.push(async () => {
    await rocks.close()
    await rm(dir, { recursive: true, force: true })
  })
  return rocks
}

describe('KvRowCache', () => {
  it('keeps within its budget, evicting unreferenced entries before referenced ones', () => {
    const cache = new KvRowCache(5_000)
    const segment = cache.segment()
    const ids = Array.from({ length: 40 }, (_, i) => segment.id(key(i)))
    for (let i = 0; i < 20; i++) cache.set(ids[i], value(i, 0, 200))
    expect(cache.usedBytes).toBeLessThanOrEqual(5_000)
    const held = ids.slice(0, 20).filter(id => cache.has(id))
    expect(held.length).toBeGreaterThan(5)
    expect(held.length).toBeLessThan(20)
    // Touch the oldest held entry: a run of new entries evicts the others first.
    const touched = held[0]
    expect(cache.get(touched)?.equals(value(ids.indexOf(touched), 0, 200))).toBe(true)
    for (let i = 20; i < 20 + held.length - 1; i++) cache.set(ids[i], value(i, 0, 200))
    expect(cache.has(touched)).toBe(true)
    expect(held.slice(1).filter(id => cache.has(id))).toEqual([])
    expect(cache.usedBytes).toBeLessThanOrEqual(5_000)
  })

  it('does not cache a value larger than the whole budget', () => {
    const cache = new KvRowCache(1000)
    const id = cache.segment().id(key(1))
    cache.set(id, Buffer.alloc(2000))
    expect(cache.has(id)).toBe(false)
    expect(cache.usedBytes).toBe(0)
  })

  it('drops a read that a completed write may have overtaken, and updates cached keys on writes', () => {
    const cache = new KvRowCache(1 << 20)
    const segment = cache.segment()
    const id = segment.id(key(1))
    // A read starts (it notes the epoch), a write of the key completes, then the read returns the
    // value from before the write: it must not be cached.
    const epoch = segment.writeEpoch
    segment.afterWrite([put(1, 1)])
    segment.cacheRead(epoch, [key(1)], [value(1, 0)])
    expect(cache.has(id)).toBe(false)
    // A read after the write is cached; later writes replace or remove the entry.
    segment.cacheRead(segment.writeEpoch, [key(1)], [value(1, 1)])
    expect(segment.get(id)).toEqual(value(1, 1))
    segment.afterWrite([put(1, 2)])
    expect(segment.get(id)).toEqual(value(1, 2))
    segment.afterWrite([del(1)])
    expect(cache.has(id)).toBe(false)
    // Absent keys are not cached; a failed write forgets what it touched.
    segment.cacheRead(segment.writeEpoch, [key(1), key(2)], [null, value(2)])
    expect(cache.size).toBe(1)
    segment.forget([put(2, 5)])
    expect(cache.size).toBe(0)
  })

  it('drops a closed segment and only that one', () => {
    const cache = new KvRowCache(1 << 20)
    const a = cache.segment()
    const b = cache.segment()
    a.cacheRead(a.writeEpoch, [key(1), key(2)], [value(1), value(2)])
    b.cacheRead(b.writeEpoch, [key(1)], [value(1, 9)])
    expect(cache.size).toBe(3)
    a.close()
    expect(cache.size).toBe(1)
    expect(b.get(b.id(key(1)))?.equals(value(1, 9))).toBe(true)
    a.cacheRead(a.writeEpoch, [key(3)], [value(3)])
    expect(cache.size).toBe(1)
  })
})

describe('RocksDbKv with a row cache', () => {
  it('answers repeated lookups from the cache and stays equal to RocksDB across puts and deletes', async () => {
    const cache = new KvRowCache(1 << 20)
    const rocks = await openRocks(cache)
    await rocks.write([put(1), put(2), put(3)], null)
    const keys = [key(1), key(2), key(3), key(4)]
    expect(await rocks.multiGet(keys)).toEqual([value(1), value(2), value(3), null])
    expect(cache.stats).toEqual({ hits: 0, misses: 4 })
    expect(await rocks.multiGet(keys)).toEqual([value(1), value(2), value(3), null])
    expect(cache.stats).toEqual({ hits: 3, misses: 5 })
    await rocks.write([put(1, 1), del(2), put(4, 1)], null)
    // Cached keys were updated by the write; key 4 (not cached) is read from RocksDB.
    expect(await rocks.multiGet(keys)).toEqual([value(1, 1), null, value(3), value(4, 1)])
    expect(cache.stats.hits).toBe(5)
    const uncached = await openRocks(null)
    await uncached.write([put(1), put(2), put(3)], null)
    await uncached.write([put(1, 1), del(2), put(4, 1)], null)
    expect(await uncached.multiGet(keys)).toEqual(await rocks.multiGet(keys))
  })

  it('never keeps a value read while a write of the same key completed', async () => {
    const cache = new KvRowCache(1 << 20)
    const rocks = await openRocks(cache)
    await rocks.write([put(1, 0)], null)
    for (let version = 1; version <= 50; version++) {
      // The read goes to RocksDB (the write below leaves key 1 uncached when it was not) while the
      // write is applied: it may see either version, but what stays cached must be the new one.
      const read = rocks.multiGet([key(1)])
      await rocks.write([put(1, version)], null)
      const [seen] = await read
      expect([value(1, version - 1), value(1, version)]).toContainEqual(seen)
      expect(await rocks.multiGet([key(1)])).toEqual([value(1, version)])
      expect(await rocks.multiGet([key(1)])).toEqual([value(1, version)])
    }
    expect(cache.stats.hits).toBeGreaterThan(0)
  })

  it('caches copies of written values, not views of the caller buffers', async () => {
    const cache = new KvRowCache(1 << 20)
    const rocks = await openRocks(cache)
    await rocks.write([put(7)], null)
    await rocks.multiGet([key(7)])
    const big = Buffer.alloc(64 * 1024, 0x41)
    const bytes = big.subarray(100, 200)
    await rocks.write([{ key: key(7), value: { bytes } }], null)
    big.fill(0x42)
    const [cached] = await rocks.multiGet([key(7)])
    expect(cache.stats.hits).toBe(1)
    expect(cached).toEqual(Buffer.alloc(100, 0x41))
    expect(cached?.buffer.byteLength).toBe(100)
  })

  it('reads the stored meta from RocksDB, never from the cache', async () => {
    const rocks = await openRocks(new KvRowCache(1 << 20))
    await rocks.write([put(1)], { flushedOffset: 5, rowCount: 1, anchor: null })
    expect(await rocks.readMeta()).toMatchObject({ flushedOffset: 5, rowCount: 1 })
    await rocks.write([put(2)], { flushedOffset: 9, rowCount: 2, anchor: null })
    expect(await rocks.readMeta()).toMatchObject({ flushedOffset: 9, rowCount: 2 })
  })

  it('gives the cache up when the store closes', async () => {
    const cache = new KvRowCache(1 << 20)
    const rocks = await openRocks(cache)
    await rocks.write([put(1), put(2)], null)
    await rocks.multiGet([key(1), key(2)])
    expect(cache.size).toBe(2)
    await rocks.close()
    expect(cache.size).toBe(0)
    expect(cache.usedBytes).toBe(0)
    await expect(rocks.multiGet([key(1)])).rejects.toMatchObject({ code: expect.anything() })
  })
})
