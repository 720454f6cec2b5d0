import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { RocksDbKv, SMALL_ROCKSDB_OPTIONS } from '../rocksdb-kv.js'
import { checkpointRocksDb, parseLiveSstFiles, sstFileName } from './rocksdb-checkpoint.js'

let dir: string | undefined

afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

const key = (i: number) => Buffer.from(`key-${String(i).padStart(6, '0')}`)

describe('parseLiveSstFiles', () => {
  it('reads file numbers and sizes of every level', () => {
    const text = [
      '--- level 0 --- version# 6 ---',
      " 15:795111[23057 .. 30000]['6B32' seq:23057, type:1 .. '6B33' seq:30000, type:1](0)",
      ' 9:878312[1 .. 7684][..](0)',
      '--- level 1 --- version# 6 ---',
      ' 1234567:10[1 .. 2][..](0)',
      '--- level 2 --- version# 6 ---',
    ].join('\n')
    expect([...parseLiveSstFiles(text)]).toEqual([
      ['000015.sst', 795111],
      ['000009.sst', 878312],
      ['1234567.sst', 10],
    ])
    expect(parseLiveSstFiles('--- level 0 --- version# 1 ---\n').size).toBe(0)
    expect(sstFileName(7)).toBe('000007.sst')
  })
})

describe('checkpointRocksDb', () => {
  it('stages a directory that opens as the store at checkpoint time, unaffected by later writes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-checkpoint-'))
    const rocks = await RocksDbKv.open(join(dir, 'db'), SMALL_ROCKSDB_OPTIONS)
    const value = Buffer.alloc(100, 7)
    for (let round = 0; round < 3; round++) {
      const writes = Array.from({ length: 2000 }, (_, i) => ({
        key: key(round * 1000 + i),
        value: { bytes: value },
      }))
      await rocks.write(writes, { flushedOffset: round + 1, rowCount: -1, anchor: null })
      await rocks.flushMemTable()
    }
    const checkpoint = await checkpointRocksDb(rocks, join(dir, 'checkpoint'))
    await rocks.write(
      [
        { key: key(999_999), value: { bytes: value } },
        { key: key(0), value: null },
      ],
      {
        flushedOffset: 99,
        rowCount: -1,
        anchor: null,
      },
    )
    await rocks.flushMemTable()
    await rocks.close()
    const names = checkpoint.files.map(f => f.name).sort()
    expect(names.filter(n => n.endsWith('.sst')).length).toBeGreaterThan(0)
    expect(names).toContain('CURRENT')
    expect((await readdir(checkpoint.dir)).sort()).toEqual(names)
    const copy = await RocksDbKv.open(checkpoint.dir, SMALL_ROCKSDB_OPTIONS)
    try {
      expect((await copy.readMeta())?.flushedOffset).toBe(3)
      expect((await copy.limitScan(100_000)).length).toBe(4000)
      expect(await copy.multiGet([key(0), key(999_999)])).toEqual([value, null])
    } finally {
      await copy.close()
    }
  })
})
