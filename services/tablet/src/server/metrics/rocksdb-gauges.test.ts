import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration } from '@sluice/core/config'
import { afterEach, describe, expect, it } from 'vitest'
import { RocksDbKv, rocksDbKvOptions, SMALL_ROCKSDB_OPTIONS } from '../../kv/rocksdb-kv.js'
import { parseTickers } from './rocksdb-gauges.js'

describe('RocksDB block cache statistics', () => {
  const dirs: string[] = []
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
  })

  async function readBack(statistics: boolean): Promise<{ hit: number; miss: number }> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-rocks-stats-'))
    dirs.push(dir)
    const kv = await RocksDbKv.open(dir, { ...SMALL_ROCKSDB_OPTIONS, statistics })
    try {
      const keys = Array.from({ length: 500 }, (_, i) => Buffer.from(`key-${String(i).padStart(4, '0')}`))
      await kv.write(
        keys.map(key => ({ key, value: { bytes: Buffer.alloc(200, 7) } })),
        null,
      )
      await kv.flushMemTable()
      // Twice: the first read misses and fills the block cache, the second hits it.
      for (let round = 0; round < 2; round++) await kv.multiGet(keys)
      const t = parseTickers(await kv.property('rocksdb.options-statistics'))
      return { hit: t.blockCacheHit, miss: t.blockCacheMiss }
    } finally {
      await kv.close()
    }
  }

  it('counts hits and misses once statistics are on, and nothing without them', async () => {
    const on = await readBack(true)
    expect(on.miss).toBeGreaterThan(0)
    expect(on.hit).toBeGreaterThan(on.miss)
    expect(await readBack(false)).toEqual({ hit: 0, miss: 0 })
  })

  it('are on exactly when the server reports metrics', () => {
    expect(rocksDbKvOptions(Configuration.load({})).statistics).toBe(false)
    expect(rocksDbKvOptions(Configuration.load({ 'metrics.reporters': 'prometheus' })).statistics).toBe(true)
    expect(rocksDbKvOptions(Configuration.load({ 'sluice.metrics.emf.interval': '60s' })).statistics).toBe(
      true,
    )
  })

  it('parses the tickers of a statistics dump', () => {
    const dump = [
      'rocksdb.block.cache.miss COUNT : 30',
      'rocksdb.block.cache.hit COUNT : 87',
      'rocksdb.block.cache.index.hit COUNT : 5',
    ].join('\n')
    expect(parseTickers(dump)).toEqual({ blockCacheHit: 87, blockCacheMiss: 30 })
    expect(parseTickers('')).toEqual({ blockCacheHit: 0, blockCacheMiss: 0 })
  })
})
